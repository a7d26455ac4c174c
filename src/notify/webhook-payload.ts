import { createHmac } from 'node:crypto';
import { stripControlCharacters } from '../common/validation/control-characters.js';
import type { HostEventDto } from '../events/dto/event.dto.js';
import type { DnsAnswerDto, HttpChangeDto, TakeoverDto, WildcardZoneDto } from '../hosts/model/knowledge.dto.js';

export const WEBHOOK_FORMATS = ['json', 'slack', 'discord', 'teams', 'telegram', 'email'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** What a delivery sends: an HTTP body (every format but email), or a mail. */
export type Outgoing = { body: string } | { subject: string; text: string };

/** Where a message points back to, and where a Telegram message goes. */
export interface MessageOptions {
  /** PUBLIC_URL, when it is set: messages link to the domain's new-host feed there. */
  publicUrl?: string;
  /** Telegram's chat_id. */
  chatId?: string | null;
}

/** The most hosts (or changes) one delivery lists; `new_count` (`event_count`) always tells how many there are. */
export const MAX_HOSTS_PER_DELIVERY = 1000;
/** Characters of a page title a chat line quotes. */
const CHAT_TITLE = 60;
/** Lines of hosts a chat message lists before "… and N more". */
const CHAT_LINES = 25;
/** The longest message each chat service takes, in characters (Discord 2,000, Telegram 4,096). */
const MAX_CHARS: Partial<Record<WebhookFormat, number>> = { discord: 2000, telegram: 4096 };

export const SIGNATURE_HEADER = 'x-subdomain-monitor-signature-256';
export const DELIVERY_HEADER = 'x-subdomain-monitor-delivery';
export const EVENT_HEADER = 'x-subdomain-monitor-event';

export interface NewHostsBatch {
  deliveryId: string;
  /** null for the hosts of the CT log follower. */
  scanId: string | null;
  domain: string;
  platform: string;
  program?: string | null;
  newCount: number;
  hosts: { host: string; first_seen_at: string }[];
}

/** One delivery of new hosts in a webhook's format. */
export function renderPayload(format: WebhookFormat, batch: NewHostsBatch, options: MessageOptions = {}): Outgoing {
  if (format === 'json') {
    return {
      body: JSON.stringify({
        event: 'new_hosts',
        delivery_id: batch.deliveryId,
        source: batch.scanId === null ? 'ct' : 'scan',
        scan_id: batch.scanId,
        domain: batch.domain,
        platform: batch.platform,
        new_count: batch.newCount,
        hosts: batch.hosts,
        truncated: batch.hosts.length < batch.newCount,
      }),
    };
  }
  const noun = batch.newCount === 1 ? 'host' : 'hosts';
  const from = batch.scanId === null ? ', from the CT logs' : '';
  return renderMessage(
    format,
    {
      head: `${batch.newCount} new ${noun} on ${batch.domain} (${about(batch)})${from}`,
      lines: batch.hosts.map((h) => h.host),
      total: batch.newCount,
      link: linkTo(options, `/api/v1/domains/${batch.domain}/subdomains/new`),
    },
    options,
  );
}

export interface HostEventsBatch {
  deliveryId: string;
  domain: string;
  platform: string;
  program?: string | null;
  eventCount: number;
  events: HostEventDto[];
}

/** A delivery of changes (types other than host_new) in a webhook's format. */
export function renderEventsPayload(
  format: WebhookFormat,
  batch: HostEventsBatch,
  options: MessageOptions = {},
): Outgoing {
  if (format === 'json') {
    return {
      body: JSON.stringify({
        event: 'host_events',
        delivery_id: batch.deliveryId,
        domain: batch.domain,
        platform: batch.platform,
        event_count: batch.eventCount,
        events: batch.events,
        truncated: batch.events.length < batch.eventCount,
      }),
    };
  }
  const noun = batch.eventCount === 1 ? 'change' : 'changes';
  return renderMessage(
    format,
    {
      head: `${batch.eventCount} ${noun} on ${batch.domain} (${about(batch)})`,
      lines: batch.events.map(eventLine),
      total: batch.eventCount,
      link: linkTo(options, `/api/v1/events?domain=${batch.domain}`),
    },
    options,
  );
}

export interface DigestBatch {
  deliveryId: string;
  windowFrom: string;
  windowTo: string;
  hostCount: number;
  hosts: { host: string; domain: string; platform: string; program: string | null; first_seen_at: string }[];
  eventCount: number;
  events: HostEventDto[];
}

/** A digest: the new hosts and changes of a window, across the webhook's platforms and domains. */
export function renderDigestPayload(format: WebhookFormat, batch: DigestBatch, options: MessageOptions = {}): Outgoing {
  if (format === 'json') {
    return {
      body: JSON.stringify({
        event: 'digest',
        delivery_id: batch.deliveryId,
        window_from: batch.windowFrom,
        window_to: batch.windowTo,
        new_count: batch.hostCount,
        hosts: batch.hosts,
        event_count: batch.eventCount,
        events: batch.events,
        truncated: batch.hosts.length < batch.hostCount || batch.events.length < batch.eventCount,
      }),
    };
  }
  const hosts = `${batch.hostCount} new ${batch.hostCount === 1 ? 'host' : 'hosts'}`;
  const changes = batch.eventCount > 0 ? `, ${batch.eventCount} ${batch.eventCount === 1 ? 'change' : 'changes'}` : '';
  const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
  return renderMessage(
    format,
    {
      head: `${hosts}${changes} from ${minute(batch.windowFrom)} to ${minute(batch.windowTo)} UTC`,
      lines: [...batch.hosts.map((h) => `${h.host} (${about(h)})`), ...batch.events.map(eventLine)],
      total: batch.hostCount + batch.eventCount,
      link: linkTo(options, '/api/v1/subdomains/new'),
    },
    options,
  );
}

/** A message for people: a head line, up to CHAT_LINES lines of `total` ("… and N more"), and a link back. */
interface Message {
  head: string;
  lines: string[];
  total: number;
  link?: string;
}

/** "hackerone, program Acme": the platform, and the program when the domain has one. */
function about(batch: { platform: string; program?: string | null }): string {
  return batch.program ? `${batch.platform}, program ${batch.program}` : batch.platform;
}

/** `path` under PUBLIC_URL, or none when it is not set. */
function linkTo(options: MessageOptions, path: string): string | undefined {
  return options.publicUrl ? `${options.publicUrl.replace(/\/+$/, '')}${path}` : undefined;
}

/**
 * A message in a chat service's documented incoming-webhook payload, or a mail. What a name may hold that a
 * service would act on is neutralised: Slack's `<`, `>` and `&` (mentions such as <!channel>) are escaped, Discord
 * is told to ping nobody, and Telegram gets plain text (no parse_mode).
 */
function renderMessage(format: Exclude<WebhookFormat, 'json'>, m: Message, options: MessageOptions): Outgoing {
  const fenced = format === 'slack' || format === 'discord';
  const text = (max: number) => messageText(m, max, fenced);
  switch (format) {
    case 'slack':
      return {
        body: JSON.stringify({
          text: text(Infinity).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
        }),
      };
    case 'discord':
      return { body: JSON.stringify({ content: text(MAX_CHARS.discord!), allowed_mentions: { parse: [] } }) };
    case 'telegram':
      return {
        body: JSON.stringify({
          chat_id: options.chatId,
          text: text(MAX_CHARS.telegram!),
          disable_web_page_preview: true,
        }),
      };
    case 'teams':
      return { body: JSON.stringify(teamsCard(m)) };
    case 'email':
      return { subject: m.head, text: text(Infinity) };
  }
}

/**
 * A Teams message as a Workflows "post to a channel when a webhook request is received" flow takes it: an
 * Adaptive Card, with the head in bold, the lines in monospace, and the link as an action.
 */
function teamsCard(m: Message) {
  const { shown, more } = fit(m, Infinity, (lines) => lines.join('\n').length);
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: m.head, weight: 'Bolder', wrap: true },
            { type: 'TextBlock', text: m.lines.slice(0, shown).join('\n\n'), fontType: 'Monospace', wrap: true },
            ...(more > 0 ? [{ type: 'TextBlock', text: `… and ${more} more`, isSubtle: true }] : []),
          ],
          ...(m.link ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in Subdomain Monitor', url: m.link }] } : {}),
        },
      },
    ],
  };
}

/**
 * One change as a chat line: `dns_changed api.example.com: 192.0.2.1 → 192.0.2.9`. What a target's server chose
 * (a title) is quoted without control characters or backticks, which would end the code block, and shortened.
 */
export function eventLine(e: HostEventDto): string {
  const quoted = (text: string | null) =>
    text === null ? 'no title' : `"${stripControlCharacters(text).replace(/`/g, "'").slice(0, CHAT_TITLE)}"`;
  const dns = (a: DnsAnswerDto | null) => {
    if (!a) return 'nothing';
    if (a.status !== 'resolved') return a.status;
    // The end of the alias chain, then up to four addresses.
    const seen = [...a.cname.slice(-1), ...[...a.a, ...a.aaaa].slice(0, 4)];
    return seen.join(' ') || 'no address';
  };
  const http = (p: HttpChangeDto | null) =>
    !p ? 'never probed' : p.listening ? `${p.status ?? '?'} ${quoted(p.title)}` : 'not answering';
  switch (e.type) {
    case 'dns_changed':
      return `${e.type} ${e.host}: ${dns(e.before as DnsAnswerDto | null)} → ${dns(e.after as DnsAnswerDto | null)}`;
    case 'http_changed':
      return `${e.type} ${e.host}: ${http(e.before as HttpChangeDto | null)} → ${http(e.after as HttpChangeDto | null)}`;
    case 'takeover_candidate': {
      const t = e.after as TakeoverDto | null;
      return `${e.type} ${e.host}: ${t ? `${stripControlCharacters(t.service)} (${t.evidence})` : ''}`;
    }
    case 'wildcard_detected': {
      const z = e.after as WildcardZoneDto | null;
      return `${e.type} ${z ? `${z.zone} → ${z.answers.slice(0, 4).join(' ')}` : e.host}`;
    }
    case 'scope_changed':
      return `${e.type} ${e.host}: ${(e.after as { in_scope?: boolean } | null)?.in_scope ? 'in scope' : 'out of scope'}`;
    case 'host_new':
    case 'host_gone':
    case 'host_back':
      return `${e.type} ${e.host}`;
  }
}

/** A test delivery, which its owner asks for: it names no host. */
export function renderTestPayload(format: WebhookFormat, deliveryId: string, options: MessageOptions = {}): Outgoing {
  if (format === 'json') {
    return { body: JSON.stringify({ event: 'test', delivery_id: deliveryId, message: TEST_MESSAGE }) };
  }
  return renderMessage(format, { head: TEST_MESSAGE, lines: [], total: 0 }, options);
}

const TEST_MESSAGE = 'A test delivery from Subdomain Monitor: this webhook reaches you.';

/** The headers of a delivery: what it is, its id, and its signature when the webhook has a secret. */
export function deliveryHeaders(
  kind: string,
  deliveryId: string,
  secret: string | null,
  body: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'subdomain-monitor-webhooks/1',
    [EVENT_HEADER]: kind,
    [DELIVERY_HEADER]: deliveryId,
  };
  if (secret) headers[SIGNATURE_HEADER] = signature(secret, body);
  return headers;
}

/**
 * A webhook URL as it is shown after its creation: its origin and, when it is a plain word (`services`, `api`),
 * the first segment of its path; the rest, where the services keep their tokens, is left out. An email
 * webhook's mailto: URL holds no secret and is shown whole.
 */
export function maskUrl(text: string): string {
  if (text.startsWith('mailto:')) return text;
  const url = new URL(text);
  const [first, ...rest] = url.pathname.split('/').filter(Boolean);
  const shown = first && /^[a-z_-]{1,24}$/i.test(first) ? first : first ? '…' : '';
  return `${url.origin}/${shown}${shown !== '…' && (rest.length > 0 || url.search) ? '/…' : ''}`;
}

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes with the webhook's secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** How many of a message's lines fit within `max` characters, as `size` measures the text they make. */
function fit(m: Message, max: number, size: (lines: string[], more: number) => number) {
  let shown = Math.min(m.lines.length, CHAT_LINES);
  while (shown > 0 && size(m.lines.slice(0, shown), m.total - shown) > max) shown--;
  return { shown, more: m.total - shown };
}

/** The head line, up to CHAT_LINES lines (in a code block for Slack and Discord), "… and N more", the link. */
function messageText(m: Message, max: number, fenced: boolean): string {
  const build = (lines: string[], more: number) => {
    const block =
      lines.length === 0 ? '' : fenced ? `\n\`\`\`\n${lines.join('\n')}\n\`\`\`` : `\n\n${lines.join('\n')}`;
    return `${m.head}${block}${more > 0 ? `\n… and ${more} more` : ''}${m.link ? `\n${m.link}` : ''}`;
  };
  const { shown, more } = fit(m, max, (lines, rest) => build(lines, rest).length);
  return build(m.lines.slice(0, shown), more).slice(0, max);
}
