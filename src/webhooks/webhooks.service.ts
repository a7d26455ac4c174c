import { Injectable } from '@nestjs/common';
import { DomainsRepository } from '../domains/domains.repository.js';
import { EVENT_TYPES, type EventType } from '../events/dto/events.query.js';
import { PlatformsRepository } from '../platforms/platforms.repository.js';
import { WEBHOOK_FORMATS, type WebhookFormat } from './webhook-payload.js';
import { type WebhookRow, WebhooksRepository } from './webhooks.repository.js';

/** A bad argument from an operator; the CLI prints its message alone. */
export class WebhookInputError extends Error {}

export interface AddWebhook {
  url: string;
  platform?: string;
  domain?: string;
  format?: string;
  secret?: string;
  /** A comma list of change types (EVENT_TYPES); host_new alone when not given. */
  types?: string;
}

/** `--types`: a comma list of change types, each once, in the feed's order; host_new when not given. */
function parseTypes(text: string | undefined): EventType[] {
  if (text === undefined) return ['host_new'];
  const given = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = given.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (given.length === 0 || unknown.length > 0) {
    throw new WebhookInputError(`--types must be a comma list of ${EVENT_TYPES.join(', ')}`);
  }
  return EVENT_TYPES.filter((t) => given.includes(t));
}

/** The operator's webhooks: validated before anything is written. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly domains: DomainsRepository,
    private readonly platforms: PlatformsRepository,
  ) {}

  async add(input: AddWebhook): Promise<string> {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw new WebhookInputError(`"${input.url}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new WebhookInputError(`the URL must be http or https, not ${url.protocol.replace(':', '')}`);
    }
    if (url.username || url.password) {
      throw new WebhookInputError('the URL must not hold a user name or password; use --secret to authenticate');
    }
    const format = (input.format ?? 'json') as WebhookFormat;
    if (!WEBHOOK_FORMATS.includes(format)) {
      throw new WebhookInputError(`--format must be one of ${WEBHOOK_FORMATS.join(', ')}, got "${input.format}"`);
    }
    const types = parseTypes(input.types);
    if (input.platform && input.domain) throw new WebhookInputError('give --platform or --domain, not both');
    const problem = input.platform ? await this.platforms.unknownSlugProblem(input.platform) : null;
    if (problem) throw new WebhookInputError(problem);
    let domainId: number | null = null;
    if (input.domain) {
      const domain = await this.domains.findByName(input.domain);
      if (!domain) throw new WebhookInputError(`${input.domain} is not a tracked domain`);
      domainId = domain.id;
    }
    if (input.secret !== undefined && input.secret.length < 16) {
      throw new WebhookInputError('--secret must be at least 16 characters');
    }
    return this.webhooks.add({
      url: url.href,
      platform: input.platform ?? null,
      domainId,
      format,
      secret: input.secret ?? null,
      types,
    });
  }

  list(): Promise<WebhookRow[]> {
    return this.webhooks.list();
  }

  async remove(idOrUrl: string): Promise<string[]> {
    const removed = await this.webhooks.remove(idOrUrl);
    if (removed.length === 0) throw new WebhookInputError(`no webhook with the id or URL ${idOrUrl}`);
    return removed;
  }
}
