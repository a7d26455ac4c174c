import { createHmac } from 'node:crypto';
import { stripControlCharacters } from '../common/validation/control-characters.js';
import type { HostEventDto } from '../events/dto/event.dto.js';
import type { DnsAnswerDto, HttpChangeDto, TakeoverDto, WildcardZoneDto } from '../hosts/model/knowledge.dto.js';
import { CHANNELS, channelOf, type MessageOptions, type Outgoing, type WebhookFormat } from './channels/index.js';
import { ours, type Text, text } from './channels/text.js';

export { WEBHOOK_FORMATS, type WebhookFormat } from './channels/index.js';
export type { MessageOptions, Outgoing } from './channels/index.js';

/** The most hosts (or changes) one delivery lists; `new_count` (`event_count`) always tells how many there are. */
export const MAX_HOSTS_PER_DELIVERY = 1000;
/** Characters of a page title a chat line quotes. */
const CHAT_TITLE = 60;

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
  hosts: DeliveredHost[];
}

/**
 * A new host as a delivery tells of it: its name, when it was first seen, and the webhook's fields (HOST_FIELDS)
 * as they were known when the delivery was sent.
 */
export interface DeliveredHost {
  host: string;
  first_seen_at: string;
  ips?: string[];
  cname?: string[];
  status?: number | null;
  title?: string | null;
  [field: string]: unknown;
}

/**
 * A new host as a chat line: its name, then the flat fields the webhook asks for that are known (the end of the
 * alias chain, up to four addresses, the HTTP status and the page title, quoted and shortened), each channel
 * escaping what came from outside.
 */
function hostLine(h: DeliveredHost): Text {
  const facts: Text[] = [];
  if (h.cname?.length) facts.push(text`→ ${h.cname[h.cname.length - 1]}`);
  if (h.ips?.length) facts.push(text`${h.ips.slice(0, 4).join(' ')}`);
  if (typeof h.status === 'number') facts.push(text`${h.status}`);
  if (typeof h.title === 'string') facts.push(text`"${stripControlCharacters(h.title).slice(0, CHAT_TITLE)}"`);
  return facts.reduce<Text>((line, fact) => text`${line} ${fact}`, text`${h.host}`);
}

/** One delivery of new hosts in a webhook's format. */
export function renderPayload(format: WebhookFormat, batch: NewHostsBatch, options: MessageOptions = {}): Outgoing {
  const data = {
    event: 'new_hosts',
    delivery_id: batch.deliveryId,
    source: batch.scanId === null ? 'ct' : 'scan',
    scan_id: batch.scanId,
    domain: batch.domain,
    platform: batch.platform,
    new_count: batch.newCount,
    hosts: batch.hosts,
    truncated: batch.hosts.length < batch.newCount,
  };
  const message = () => {
    const noun = ours(batch.newCount === 1 ? 'host' : 'hosts');
    const from = ours(batch.scanId === null ? ', from the CT logs' : '');
    return {
      head: text`${batch.newCount} new ${noun} on ${batch.domain} (${about(batch)})${from}`,
      lines: batch.hosts.map(hostLine),
      total: batch.newCount,
      link: linkTo(options, `/api/v1/domains/${batch.domain}/subdomains/new`),
    };
  };
  return channelOf(format).render({ data, message }, options);
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
  const data = {
    event: 'host_events',
    delivery_id: batch.deliveryId,
    domain: batch.domain,
    platform: batch.platform,
    event_count: batch.eventCount,
    events: batch.events,
    truncated: batch.events.length < batch.eventCount,
  };
  const message = () => {
    const noun = ours(batch.eventCount === 1 ? 'change' : 'changes');
    return {
      head: text`${batch.eventCount} ${noun} on ${batch.domain} (${about(batch)})`,
      lines: batch.events.map(eventLine),
      total: batch.eventCount,
      link: linkTo(options, `/api/v1/events?domain=${batch.domain}`),
    };
  };
  return channelOf(format).render({ data, message }, options);
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
  const data = {
    event: 'digest',
    delivery_id: batch.deliveryId,
    window_from: batch.windowFrom,
    window_to: batch.windowTo,
    new_count: batch.hostCount,
    hosts: batch.hosts,
    event_count: batch.eventCount,
    events: batch.events,
    truncated: batch.hosts.length < batch.hostCount || batch.events.length < batch.eventCount,
  };
  const message = () => {
    const hosts = `${batch.hostCount} new ${batch.hostCount === 1 ? 'host' : 'hosts'}`;
    const count = batch.eventCount;
    const changes = count > 0 ? `, ${count} ${count === 1 ? 'change' : 'changes'}` : '';
    const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
    return {
      head: ours(`${hosts}${changes} from ${minute(batch.windowFrom)} to ${minute(batch.windowTo)} UTC`),
      lines: [...batch.hosts.map((h) => text`${h.host} (${about(h)})`), ...batch.events.map(eventLine)],
      total: batch.hostCount + batch.eventCount,
      link: linkTo(options, '/api/v1/subdomains/new'),
    };
  };
  return channelOf(format).render({ data, message }, options);
}

/** "hackerone, program Acme": the platform, and the program when the domain has one. */
function about(batch: { platform: string; program?: string | null }): Text {
  return batch.program ? text`${batch.platform}, program ${batch.program}` : text`${batch.platform}`;
}

/** `path` under PUBLIC_URL, or none when it is not set. */
function linkTo(options: MessageOptions, path: string): string | undefined {
  return options.publicUrl ? `${options.publicUrl.replace(/\/+$/, '')}${path}` : undefined;
}

/**
 * One change as a chat line: `dns_changed api.example.com: 192.0.2.1 → 192.0.2.9`. What a target's server chose
 * (a title) is quoted without control characters, and shortened; each channel escapes it as it does all outside text.
 */
export function eventLine(e: HostEventDto): Text {
  const type = ours(e.type);
  const quoted = (title: string | null) =>
    title === null ? ours('no title') : text`"${stripControlCharacters(title).slice(0, CHAT_TITLE)}"`;
  const dns = (a: DnsAnswerDto | null): Text => {
    if (!a) return ours('nothing');
    if (a.status !== 'resolved') return text`${a.status}`;
    // The end of the alias chain, then up to four addresses.
    const seen = [...a.cname.slice(-1), ...[...a.a, ...a.aaaa].slice(0, 4)];
    return seen.length > 0 ? text`${seen.join(' ')}` : ours('no address');
  };
  const http = (p: HttpChangeDto | null): Text => {
    if (!p) return ours('never probed');
    if (!p.listening) return ours('not answering');
    return text`${p.status ?? ours('?')} ${quoted(p.title)}`;
  };
  switch (e.type) {
    case 'dns_changed':
      return text`${type} ${e.host}: ${dns(e.before as DnsAnswerDto | null)} → ${dns(e.after as DnsAnswerDto | null)}`;
    case 'http_changed':
      return text`${type} ${e.host}: ${http(e.before as HttpChangeDto | null)} → ${http(e.after as HttpChangeDto | null)}`;
    case 'takeover_candidate': {
      const t = e.after as TakeoverDto | null;
      return t ? text`${type} ${e.host}: ${t.service} (${t.evidence})` : text`${type} ${e.host}: `;
    }
    case 'wildcard_detected': {
      const z = e.after as WildcardZoneDto | null;
      return z ? text`${type} ${z.zone} → ${z.answers.slice(0, 4).join(' ')}` : text`${type} ${e.host}`;
    }
    case 'scope_changed': {
      const inScope = (e.after as { in_scope?: boolean } | null)?.in_scope;
      return text`${type} ${e.host}: ${ours(inScope ? 'in scope' : 'out of scope')}`;
    }
    case 'host_new':
    case 'host_gone':
    case 'host_back':
      return text`${type} ${e.host}`;
  }
}

/** A test delivery, which its owner asks for: it names no host. */
export function renderTestPayload(format: WebhookFormat, deliveryId: string, options: MessageOptions = {}): Outgoing {
  const data = { event: 'test', delivery_id: deliveryId, message: TEST_MESSAGE };
  return channelOf(format).render(
    { data, message: () => ({ head: ours(TEST_MESSAGE), lines: [], total: 0 }) },
    options,
  );
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
 * the first segment of its path; the rest, where the services keep their tokens, is left out. A URL that holds
 * no secret (an email webhook's mailto:) is shown whole.
 */
export function maskUrl(text: string): string {
  if (CHANNELS.some((c) => c.showsWholeUrl?.(text))) return text;
  const url = new URL(text);
  const [first, ...rest] = url.pathname.split('/').filter(Boolean);
  const shown = first && /^[a-z_-]{1,24}$/i.test(first) ? first : first ? '…' : '';
  return `${url.origin}/${shown}${shown !== '…' && (rest.length > 0 || url.search) ? '/…' : ''}`;
}

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes with the webhook's secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
