import { createHmac } from 'node:crypto';
import { stripControlCharacters } from '../common/validation/control-characters.js';
import type { HostEventDto } from '../events/dto/event.dto.js';
import type { DnsAnswerDto, HttpChangeDto, TakeoverDto, WildcardZoneDto } from '../intel/dto/dns.dto.js';

export const WEBHOOK_FORMATS = ['json', 'slack', 'discord'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The most hosts (or changes) one delivery lists; `new_count` (`event_count`) always tells how many there are. */
export const MAX_HOSTS_PER_DELIVERY = 1000;
/** Characters of a page title a chat line quotes. */
const CHAT_TITLE = 60;
/** Lines of hosts a chat message lists before "… and N more". */
const CHAT_LINES = 25;
/** Discord refuses a message over 2,000 characters. */
const DISCORD_MAX = 2000;

export const SIGNATURE_HEADER = 'x-subdomain-monitor-signature-256';
export const DELIVERY_HEADER = 'x-subdomain-monitor-delivery';
export const EVENT_HEADER = 'x-subdomain-monitor-event';

export interface NewHostsBatch {
  deliveryId: string;
  /** null for the hosts of the CT log follower. */
  scanId: string | null;
  domain: string;
  platform: string;
  newCount: number;
  hosts: { host: string; first_seen_at: string }[];
}

/** The body of one delivery in a webhook's format. */
export function renderPayload(format: WebhookFormat, batch: NewHostsBatch): string {
  if (format === 'json') {
    return JSON.stringify({
      event: 'new_hosts',
      delivery_id: batch.deliveryId,
      source: batch.scanId === null ? 'ct' : 'scan',
      scan_id: batch.scanId,
      domain: batch.domain,
      platform: batch.platform,
      new_count: batch.newCount,
      hosts: batch.hosts,
      truncated: batch.hosts.length < batch.newCount,
    });
  }
  const text = chatText(batch, format === 'discord' ? DISCORD_MAX : Infinity);
  return JSON.stringify(format === 'slack' ? { text } : { content: text });
}

export interface HostEventsBatch {
  deliveryId: string;
  domain: string;
  platform: string;
  eventCount: number;
  events: HostEventDto[];
}

/** The body of a delivery of changes (types other than host_new) in a webhook's format. */
export function renderEventsPayload(format: WebhookFormat, batch: HostEventsBatch): string {
  if (format === 'json') {
    return JSON.stringify({
      event: 'host_events',
      delivery_id: batch.deliveryId,
      domain: batch.domain,
      platform: batch.platform,
      event_count: batch.eventCount,
      events: batch.events,
      truncated: batch.events.length < batch.eventCount,
    });
  }
  const noun = batch.eventCount === 1 ? 'change' : 'changes';
  const head = `${batch.eventCount} ${noun} on ${batch.domain} (${batch.platform})`;
  const text = chatMessage(
    head,
    batch.events.map(eventLine),
    batch.eventCount,
    format === 'discord' ? DISCORD_MAX : Infinity,
  );
  return JSON.stringify(format === 'slack' ? { text } : { content: text });
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

/** The body of a test delivery, which its owner asks for: it names no host. */
export function renderTestPayload(format: WebhookFormat, deliveryId: string): string {
  if (format === 'json') {
    return JSON.stringify({ event: 'test', delivery_id: deliveryId, message: TEST_MESSAGE });
  }
  return JSON.stringify(format === 'slack' ? { text: TEST_MESSAGE } : { content: TEST_MESSAGE });
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
 * the first segment of its path; the rest, where the services keep their tokens, is left out.
 */
export function maskUrl(text: string): string {
  const url = new URL(text);
  const [first, ...rest] = url.pathname.split('/').filter(Boolean);
  const shown = first && /^[a-z_-]{1,24}$/i.test(first) ? first : first ? '…' : '';
  return `${url.origin}/${shown}${shown !== '…' && (rest.length > 0 || url.search) ? '/…' : ''}`;
}

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes with the webhook's secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function chatText(batch: NewHostsBatch, max: number): string {
  const noun = batch.newCount === 1 ? 'host' : 'hosts';
  const from = batch.scanId === null ? ', from the CT logs' : '';
  const head = `${batch.newCount} new ${noun} on ${batch.domain} (${batch.platform})${from}`;
  return chatMessage(
    head,
    batch.hosts.map((h) => h.host),
    batch.newCount,
    max,
  );
}

/** A head line and up to CHAT_LINES lines of `total` in a code block, with "… and N more", within `max` characters. */
function chatMessage(head: string, all: string[], total: number, max: number): string {
  let shown = Math.min(all.length, CHAT_LINES);
  for (;;) {
    const more = total - shown;
    const lines = all.slice(0, shown);
    const text = `${head}\n\`\`\`\n${lines.join('\n')}\n\`\`\`${more > 0 ? `\n… and ${more} more` : ''}`;
    if (text.length <= max || shown === 0) return text.slice(0, max);
    shown--;
  }
}
