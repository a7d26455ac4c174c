import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { maskUrl } from '../notify/webhook-payload.js';
import { webhookState } from '../notify/webhooks.repository.js';
import { WebhooksService } from '../notify/webhooks.service.js';
import { asCliError, CliError, CliOutput } from './cli-output.js';
import { readNewSecret } from './password-input.js';

interface AddOptions {
  platform?: string;
  domain?: string;
  format?: string;
  secret?: boolean;
  types?: string;
  fields?: string;
  chatId?: string;
  scope?: string;
  digestMinutes?: number;
  resolvingOnly?: boolean;
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
    const { secret: signed, platform, domain, ...rest } = options;
    const secret = signed ? await readNewSecret('secret') : undefined;
    const id = await this.webhooks
      .add({ url: args[0], ...rest, platforms: platform, domains: domain, secret })
      .catch(asCliError);
    const scope = options.domain ?? (options.platform ? `platform ${options.platform}` : 'every domain');
    this.out.note(`Added webhook ${id} for ${scope} (${options.format ?? 'json'}${signed ? ', signed' : ''}).`);
    this.out.line(id);
  }

  @Option({ flags: '--platform <slugs>', description: 'Only these platforms’ domains (a comma list)' })
  parsePlatform(value: string): string {
    return value;
  }

  @Option({ flags: '--domain <domains>', description: 'Only these tracked root domains (a comma list)' })
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

  @Option({
    flags: '--scope <scope>',
    description: 'in (default): hosts no exclusion rule names; out: only those a rule names; all',
  })
  parseScope(value: string): string {
    return value;
  }

  @Option({
    flags: '--digest-minutes <minutes>',
    description: 'One message per this many minutes (1 to 10080), none for a window where nothing happened',
  })
  parseDigestMinutes(value: string): number {
    if (!/^\d{1,5}$/.test(value)) throw new CliError('--digest-minutes must be a whole number of minutes');
    return Number(value);
  }

  @Option({
    flags: '--resolving-only',
    description: 'With --digest-minutes: only new hosts whose DNS answer is resolved when the digest is made',
  })
  parseResolvingOnly(): boolean {
    return true;
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
    flags: '--fields <fields>',
    description:
      'What is known of each new host to send with it, a comma list of dns, http, takeover, wildcard, ips, ' +
      'cname, status, title (chat and e-mail show ips, cname, status and title after each host)',
  })
  parseFields(value: string): string {
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
        w.domains?.join(',') ?? (w.platforms ? `platform ${w.platforms.join(',')}` : 'all'),
        w.format,
        w.types.join(','),
        w.has_secret ? 'yes' : 'no',
        String(w.delivered),
        String(w.given_up),
        String(w.failures),
        w.last_status !== null ? String(w.last_status) : (w.last_error ?? '-'),
        w.last_attempt_at ?? '-',
        webhookState(w),
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
    const removed = await this.webhooks.remove(idOrUrl).catch(asCliError);
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
