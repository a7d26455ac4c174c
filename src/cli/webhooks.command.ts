import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { maskUrl } from '../webhooks/webhook-payload.js';
import { WebhookInputError, WebhooksService } from '../webhooks/webhooks.service.js';
import { CliError, CliOutput } from './cli-output.js';
import { readNewSecret } from './password-input.js';

interface AddOptions {
  platform?: string;
  domain?: string;
  format?: string;
  secret?: boolean;
  types?: string;
  chatId?: string;
}

function rethrowInputError(e: unknown): never {
  throw e instanceof WebhookInputError ? new CliError(e.message) : e;
}

@SubCommand({
  name: 'add',
  arguments: '<url>',
  description: 'POST the new hosts of every scan (of a platform or a domain), or other changes, to a URL',
})
export class WebhooksAddCommand extends CommandRunner {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(args: string[], options: AddOptions): Promise<void> {
    // --secret S, as earlier versions took it, leaves S as a second argument.
    if (args.length > 1)
      throw new CliError(
        options.secret
          ? `--secret takes no value: give the secret on standard input, e.g. printf '%s\\n' "$SECRET" | cli webhooks add URL --secret`
          : 'webhooks add takes one URL',
      );
    const { secret: signed, ...rest } = options;
    const secret = signed ? await readNewSecret('secret') : undefined;
    const id = await this.webhooks.add({ url: args[0], ...rest, secret }).catch(rethrowInputError);
    const scope = options.domain ?? (options.platform ? `platform ${options.platform}` : 'every domain');
    this.out.note(`Added webhook ${id} for ${scope} (${options.format ?? 'json'}${signed ? ', signed' : ''}).`);
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
    description:
      'json (default): the hosts as JSON; slack, discord or teams: a chat message for an incoming webhook; ' +
      'telegram: a bot message (URL https://api.telegram.org/bot<token>, with --chat-id); email: a mail to ' +
      'mailto:ADDRESS[,ADDRESS…] over SMTP_URL',
  })
  parseFormat(value: string): string {
    return value;
  }

  @Option({ flags: '--chat-id <id>', description: 'telegram: the chat, a number (-1001234567890) or @channelname' })
  parseChatId(value: string): string {
    return value;
  }

  @Option({
    flags: '--types <types>',
    description:
      'The changes to send, a comma list of host_new, host_gone, host_back, dns_changed, http_changed, ' +
      'takeover_candidate, wildcard_detected (default: host_new, the new hosts)',
  })
  parseTypes(value: string): string {
    return value;
  }

  @Option({
    flags: '--secret',
    description:
      'Sign each body: X-Subdomain-Monitor-Signature-256: sha256=<HMAC-SHA256 of the body>, with a secret (16+ chars) read from standard input (its first line) or typed twice',
  })
  parseSecret(): boolean {
    return true;
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
      [
        'ID',
        'URL',
        'FOR',
        'FORMAT',
        'TYPES',
        'SIGNED',
        'DELIVERED',
        'GIVEN UP',
        'FAILURES',
        'LAST STATUS',
        'LAST ATTEMPT',
        'STATE',
        'OWNER',
      ],
      all.map((w) => [
        w.id,
        maskUrl(w.url),
        w.domain ?? (w.platform ? `platform ${w.platform}` : 'all'),
        w.format,
        w.types.join(','),
        w.has_secret ? 'yes' : 'no',
        String(w.delivered),
        String(w.given_up),
        String(w.failures),
        w.last_status !== null ? String(w.last_status) : (w.last_error ?? '-'),
        w.last_attempt_at ?? '-',
        w.paused_at ? 'paused' : w.failing_since ? 'failing' : 'active',
        w.owner ?? 'operator',
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
  description: 'Add, list and remove webhooks that receive new hosts (or other changes) as they are found',
  subCommands: [WebhooksAddCommand, WebhooksListCommand, WebhooksRemoveCommand],
})
export class WebhooksCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: webhooks add|list|remove'));
  }
}
