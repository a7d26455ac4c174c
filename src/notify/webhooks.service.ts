import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Environment } from '../config/environment.js';
import { DomainsRepository } from '../domains/domains.repository.js';
import { EVENT_TYPES, type EventType } from '../events/dto/events.query.js';
import { SCOPE_MODES } from '../hosts/model/knowledge-filter.js';
import { HOST_FIELDS, type HostField } from '../hosts/model/host-fields.js';
import { PlatformsRepository } from '../platforms/platforms.repository.js';
import { targetProblem } from './webhook-http.js';
import { CHANNELS, channelOf, WEBHOOK_FORMATS, type WebhookFormat } from './channels/index.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import type { DeliveryRow } from './delivery.model.js';
import { WebhookInputError } from './webhook-input.error.js';
import { renderTestPayload } from './webhook-payload.js';
import { WebhookSender } from './webhook-sender.js';
import { type WebhookRow, WebhooksRepository } from './webhooks.repository.js';

export { WebhookInputError } from './webhook-input.error.js';

export interface AddWebhook {
  url: string;
  /** Only these platforms' domains: a comma list (the CLI's) or a list (the API's); all when not given. */
  platforms?: string | string[];
  /** Only these tracked root domains, as platforms; both given: a domain must be of one of the platforms. */
  domains?: string | string[];
  /** in (the default), out or all: the hosts told of, by the domain's exclusion rules. */
  scope?: string;
  /** One message per this many minutes, none for a window where nothing happened. */
  digestMinutes?: number;
  /** Digests only: new hosts whose DNS answer is resolved when the digest is made. */
  resolvingOnly?: boolean;
  format?: string;
  secret?: string;
  /** Change types (EVENT_TYPES): a comma list (the CLI's) or a list (the API's); host_new alone when not given. */
  types?: string | string[];
  /** Telegram's chat: a numeric id (-100…) or @channelname. */
  chatId?: string;
  /** What is known of each new host its deliveries carry (HOST_FIELDS): a comma list (the CLI's) or a list. */
  fields?: string | string[];
  /** A secret is made for a json webhook given none (the API's: shown once, in the answer that creates it). */
  makeSecret?: boolean;
}

/** A webhook just made: the row, and what is shown this once only (its whole URL and its secret). */
export interface CreatedWebhook {
  webhook: WebhookRow;
  secret: string | null;
}

/** The items of a comma list (the CLI's) or of a list (the API's), trimmed, empty ones left out. */
const itemsOf = (given: string | string[]) =>
  (typeof given === 'string' ? given.split(',') : given).map((v) => String(v).trim()).filter(Boolean);

/** The fields a webhook's new hosts carry, each once, in the order named; none when not given. */
function parseFields(given: string | string[] | undefined): HostField[] {
  if (given === undefined) return [];
  const list = itemsOf(given);
  if (list.some((f) => !(HOST_FIELDS as readonly string[]).includes(f))) {
    throw new WebhookInputError(`fields must be a list of ${HOST_FIELDS.join(', ')}`);
  }
  return [...new Set(list)] as HostField[];
}

/** The change types, each once, in the feed's order; host_new when not given. */
function parseTypes(given: string | string[] | undefined): EventType[] {
  if (given === undefined) return ['host_new'];
  const list = itemsOf(given);
  const unknown = list.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (list.length === 0 || unknown.length > 0) {
    throw new WebhookInputError(`types must be a list of ${EVENT_TYPES.join(', ')}`);
  }
  return EVENT_TYPES.filter((t) => list.includes(t));
}

/** The channels that take a chat id, for the error when another is given one. */
const CHAT_CHANNELS = CHANNELS.filter((c) => c.chatId).map((c) => c.format);

/** A week. */
const MAX_DIGEST_MINUTES = 10_080;
/** The most platforms or domains one webhook lists. */
const MAX_FILTER_ITEMS = 100;

/** A filter list, each item once, or null for none given; a comma list is split. */
function listOf(given: string | string[] | undefined, what: string): string[] | null {
  if (given === undefined) return null;
  const items = itemsOf(given);
  if (items.length === 0) throw new WebhookInputError(`${what} must name at least one, or be left out for all`);
  if (items.length > MAX_FILTER_ITEMS) throw new WebhookInputError(`${what} may name at most ${MAX_FILTER_ITEMS}`);
  return [...new Set(items)];
}

/** The deliveries GET /webhooks/{id}/deliveries shows, newest first. */
export const MAX_DELIVERIES_SHOWN = 100;

/** Webhooks, the operator's and their owners': validated before anything is written. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly deliveriesRepository: DeliveriesRepository,
    private readonly domains: DomainsRepository,
    private readonly platforms: PlatformsRepository,
    private readonly env: Environment,
    private readonly sender: WebhookSender,
  ) {}

  /** A webhook of the operator's (`owner` null, the CLI) or of a key's user; returns its id. */
  async add(input: AddWebhook, owner: string | null = null): Promise<string> {
    return (await this.create(input, owner)).webhook.id;
  }

  async create(input: AddWebhook, owner: string | null): Promise<CreatedWebhook> {
    const format = (input.format ?? 'json') as WebhookFormat;
    if (!WEBHOOK_FORMATS.includes(format)) {
      throw new WebhookInputError(`format must be one of ${WEBHOOK_FORMATS.join(', ')}, got "${input.format}"`);
    }
    const channel = channelOf(format);
    const url = channel.checkUrl ? channel.checkUrl(input.url, this.env) : await this.httpUrl(input.url);
    if (channel.chatId && !channel.chatId.pattern.test(input.chatId ?? '')) {
      throw new WebhookInputError(channel.chatId.problem);
    }
    if (!channel.chatId && input.chatId !== undefined) {
      throw new WebhookInputError(`a chat id is for ${CHAT_CHANNELS.join(', ')} webhooks only`);
    }
    const types = parseTypes(input.types);
    const fields = parseFields(input.fields);
    const platforms = listOf(input.platforms, 'platforms');
    for (const slug of platforms ?? []) {
      const problem = await this.platforms.unknownSlugProblem(slug);
      if (problem) throw new WebhookInputError(problem);
    }
    const names = listOf(input.domains, 'domains');
    const domainIds: number[] = [];
    for (const name of names ?? []) {
      const domain = await this.domains.findByName(name);
      if (!domain) throw new WebhookInputError(`${name} is not a tracked domain`);
      domainIds.push(domain.id);
    }
    const scope = input.scope ?? 'in';
    if (!(SCOPE_MODES as readonly string[]).includes(scope)) {
      throw new WebhookInputError(`scope must be one of ${SCOPE_MODES.join(', ')}`);
    }
    const digest = input.digestMinutes;
    if (digest !== undefined && !(Number.isInteger(digest) && digest >= 1 && digest <= MAX_DIGEST_MINUTES)) {
      throw new WebhookInputError(`digest minutes must be a whole number from 1 to ${MAX_DIGEST_MINUTES}`);
    }
    if (input.resolvingOnly && digest === undefined) {
      throw new WebhookInputError(
        'resolving only needs a digest: new hosts are resolved after they are found, so only a digest waits for it',
      );
    }
    if (input.secret !== undefined && input.secret.length < 16) {
      throw new WebhookInputError('the secret must be at least 16 characters');
    }
    const secret =
      input.secret ?? (input.makeSecret && channel.makesSecret ? randomBytes(24).toString('base64url') : null);
    const id = await this.webhooks.add({
      owner,
      url,
      platforms,
      domainIds: names ? domainIds : null,
      scope,
      digestMinutes: digest ?? null,
      resolvingOnly: input.resolvingOnly ?? false,
      format,
      secret,
      types,
      chatId: channel.chatId ? input.chatId! : null,
      fields,
    });
    return { webhook: (await this.webhooks.findOwned(id, owner))!, secret };
  }

  /** An http(s) URL with no credentials, whose host is no private address (unless WEBHOOK_ALLOW_PRIVATE=on). */
  private async httpUrl(text: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new WebhookInputError(`"${text}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new WebhookInputError(`the URL must be http or https, not ${url.protocol.replace(':', '')}`);
    }
    if (url.username || url.password) {
      throw new WebhookInputError('the URL must not hold a user name or password; use --secret to authenticate');
    }
    const unreachable = await targetProblem(url, this.env.WEBHOOK_ALLOW_PRIVATE === 'on');
    if (unreachable) throw new WebhookInputError(unreachable);
    return url.href;
  }

  /** Every webhook (the operator's view), or one owner's. */
  list(owner?: string): Promise<WebhookRow[]> {
    return this.webhooks.list(owner);
  }

  /** An owner's webhook; null when there is none with that id, or it is another user's. */
  findOwned(id: string, owner: string | null): Promise<WebhookRow | null> {
    return this.webhooks.findOwned(id, owner);
  }

  removeOwned(id: string, owner: string): Promise<boolean> {
    return this.webhooks.removeOwned(id, owner);
  }

  deliveries(id: string): Promise<DeliveryRow[]> {
    return this.deliveriesRepository.deliveries(id, MAX_DELIVERIES_SHOWN);
  }

  /** The newest `limit` deliveries of each webhook, by webhook id. */
  recentDeliveries(ids: string[], limit: number): Promise<Map<string, DeliveryRow[]>> {
    return this.deliveriesRepository.recentDeliveries(ids, limit);
  }

  retry(id: string, deliveryId: string): Promise<DeliveryRow | null> {
    return this.deliveriesRepository.retry(id, deliveryId);
  }

  /**
   * Sends a test message now, in the webhook's format and signed as its deliveries are, and records it with
   * them. The address is checked as at every delivery.
   */
  async test(webhook: WebhookRow): Promise<DeliveryRow> {
    const deliveryId = randomUUID();
    const { secret, chat_id } = await this.webhooks.sendingOf(webhook.id);
    const outgoing = renderTestPayload(webhook.format, deliveryId, { publicUrl: this.env.PUBLIC_URL, chatId: chat_id });
    const result = await this.sender.send({ ...webhook, secret }, 'test', deliveryId, outgoing);
    return this.deliveriesRepository.recordTest(webhook.id, deliveryId, result);
  }

  async remove(idOrUrl: string): Promise<string[]> {
    const removed = await this.webhooks.remove(idOrUrl);
    if (removed.length === 0) throw new WebhookInputError(`no webhook with the id or URL ${idOrUrl}`);
    return removed;
  }
}
