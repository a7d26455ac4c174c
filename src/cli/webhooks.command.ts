import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { WebhookInputError, WebhooksService } from '../webhooks/webhooks.service.js';
import { CliError, CliOutput } from './cli-output.js';

interface AddOptions {
  platform?: string;
  domain?: string;
  format?: string;
  secret?: string;
}

/**
 * A webhook URL as `list` prints it: origin and first path segment. Chat services' URLs carry their secret in
 * the rest of the path, and a query string may hold a token.
 */
export function shortUrl(text: string): string {
  const url = new URL(text);
  const [first, ...rest] = url.pathname.split('/').filter(Boolean);
  return `${url.origin}/${first ?? ''}${rest.length > 0 || url.search ? '/…' : ''}`;
}

function rethrowInputError(e: unknown): never {
  throw e instanceof WebhookInputError ? new CliError(e.message) : e;
}

@SubCommand({
  name: 'add',
  arguments: '<url>',
  description: 'POST the new hosts of every scan (of a platform or a domain) to a URL',
})
export class WebhooksAddCommand extends CommandRunner {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([url]: string[], options: AddOptions): Promise<void> {
    const id = await this.webhooks.add({ url, ...options }).catch(rethrowInputError);
    const scope = options.domain ?? (options.platform ? `platform ${options.platform}` : 'every domain');
    this.out.note(`Added webhook ${id} for ${scope} (${options.format ?? 'json'}${options.secret ? ', signed' : ''}).`);
    this.out.line(id);
  }

  @Option({ flags: '--platform <slug>', description: 'Only scans of this platform’s domains' })
  parsePlatform(value: string): string {
    return value;
  }

  @Option({ flags: '--domain <domain>', description: 'Only scans of this tracked root domain' })
  parseDomain(value: string): string {
    return value;
  }

  @Option({
    flags: '--format <format>',
    description: 'json (default): the hosts as JSON; slack or discord: a chat message for an incoming webhook',
  })
  parseFormat(value: string): string {
    return value;
  }

  @Option({
    flags: '--secret <secret>',
    description: 'Sign each body: X-Subdomain-Monitor-Signature-256: sha256=<HMAC-SHA256 of the body> (16+ chars)',
  })
  parseSecret(value: string): string {
    return value;
  }
}

@SubCommand({ name: 'list', description: 'List webhooks with their last delivery (never their secrets)' })
export class WebhooksListCommand extends CommandRunner {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(): Promise<void> {
    const all = await this.webhooks.list();
    this.out.table(
      ['ID', 'URL', 'FOR', 'FORMAT', 'SIGNED', 'DELIVERED', 'GIVEN UP', 'FAILURES', 'LAST STATUS', 'LAST ATTEMPT'],
      all.map((w) => [
        w.id,
        shortUrl(w.url),
        w.domain ?? (w.platform ? `platform ${w.platform}` : 'all'),
        w.format,
        w.has_secret ? 'yes' : 'no',
        String(w.delivered),
        String(w.given_up),
        String(w.failures),
        w.last_status !== null ? String(w.last_status) : (w.last_error ?? '-'),
        w.last_attempt_at ?? '-',
      ]),
    );
  }
}

@SubCommand({
  name: 'remove',
  arguments: '<idOrUrl>',
  description: 'Remove a webhook (by id, or every one with that URL) and its pending deliveries',
})
export class WebhooksRemoveCommand extends CommandRunner {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([idOrUrl]: string[]): Promise<void> {
    const removed = await this.webhooks.remove(idOrUrl).catch(rethrowInputError);
    this.out.line(`Removed webhook ${removed.join(', ')}.`);
  }
}

@Command({
  name: 'webhooks',
  description: 'Add, list and remove webhooks that receive new hosts after each scan',
  subCommands: [WebhooksAddCommand, WebhooksListCommand, WebhooksRemoveCommand],
})
export class WebhooksCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: webhooks add|list|remove'));
  }
}
