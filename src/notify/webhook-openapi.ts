import type { WebhooksObject } from '@nestjs/swagger';
import { DELIVERY_HEADER, EVENT_HEADER, MAX_HOSTS_PER_DELIVERY, SIGNATURE_HEADER } from './webhook-payload.js';

const header = (name: string, description: string, required = true) => ({
  name,
  in: 'header' as const,
  required,
  description,
  schema: { type: 'string' },
});

/** The headers of every delivery: its kind, its id, and with --secret its signature. */
const deliveryHeaders = (event: string) => [
  header(EVENT_HEADER, `Always ${event}`),
  header(DELIVERY_HEADER, "The delivery's id, the same on every attempt"),
  header(
    SIGNATURE_HEADER,
    'With --secret only: sha256=<hex HMAC-SHA256 of the raw body, keyed with the secret>. Compare it in ' +
      'constant time before trusting the body.',
    false,
  ),
];

/** The changes a delivery lists. */
const EVENTS = {
  type: 'array',
  description: `The changes, oldest first, at most ${MAX_HOSTS_PER_DELIVERY}, as GET /api/v1/events shows them`,
  items: { $ref: '#/components/schemas/HostEventDto' },
};

/** A nullable object of the components. */
const nullable = (schema: string, description: string) => ({
  description,
  anyOf: [{ $ref: `#/components/schemas/${schema}` }, { type: 'null' }],
});

/**
 * What a new host carries when its webhook names fields (the host lists' fields vocabulary), as known when the
 * delivery is sent.
 */
const FIELD_PROPERTIES = {
  dns: nullable('HostDnsDto', 'With fields dns: the last DNS answer; null when never resolved'),
  http: nullable('HttpProbeDto', 'With fields http: the last HTTP probe; null when never probed'),
  takeover: nullable('TakeoverDto', 'With fields takeover: a takeover candidate; null'),
  wildcard: { type: 'boolean', description: 'With fields wildcard: an echo of its zone’s wildcard answer' },
  ips: { type: 'array', items: { type: 'string' }, description: 'With fields ips: A, then AAAA addresses' },
  cname: { type: 'array', items: { type: 'string' }, description: 'With fields cname: the CNAME chain' },
  status: { type: ['integer', 'null'], description: "With fields status: the last probe's HTTP status" },
  title: { type: ['string', 'null'], description: "With fields title: the last probe's page title" },
};

/** A delivery POSTed to a webhook: its headers, and a JSON body of these properties and no others. */
function deliveryOperation(d: {
  operationId: string;
  summary: string;
  description: string;
  event: string;
  required: string[];
  properties: Record<string, object>;
}) {
  return {
    operationId: d.operationId,
    summary: d.summary,
    description: d.description,
    parameters: deliveryHeaders(d.event),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { type: 'object', required: d.required, additionalProperties: false, properties: d.properties },
        },
      },
    },
    // The receiver checks the signature header; no security scheme of the API applies to what it is sent.
    security: [],
    responses: { '2XX': { description: 'Delivered; any other answer, or none in time, is retried' } },
  };
}

/**
 * The webhooks an operator registers with `cli webhooks add` (OpenAPI 3.1's `webhooks`): what the worker POSTs
 * when a scan or the CT log follower records new hosts (type host_new), and when other changes are recorded
 * (--types).
 */
export const WEBHOOKS_OPENAPI: WebhooksObject = {
  newHosts: {
    post: deliveryOperation({
      operationId: 'newHosts',
      summary: 'New hosts of a scan or of the CT logs (sent to your URL)',
      description:
        'For webhooks whose --types include host_new (the default). One POST per webhook after each scan that ' +
        'recorded new hosts, and per burst of hosts the CT log follower recorded for a domain, for webhooks of ' +
        'every domain or of the platforms and domains it lists, for hosts of its scope (in by default). Webhooks ' +
        'with digest_minutes get a digest instead. Any 2xx answer within WEBHOOK_TIMEOUT_SECONDS ' +
        '(10) delivers it; anything else is retried after WEBHOOK_RETRY_SECONDS (30), four times longer each time, ' +
        'up to WEBHOOK_MAX_ATTEMPTS (6), then given up. Redirects are not followed. A retry sends the same body ' +
        `and ${DELIVERY_HEADER}, so a receiver can drop a delivery it already has. \`cli webhooks list\` shows ` +
        "each webhook's deliveries, failures and last status, as GET /api/v1/webhooks/{id}/deliveries does for " +
        'its owner. Chat formats (slack, discord, teams, telegram) and email send a message naming the count, ' +
        'the domain, its platform and program and up to 25 hosts, with a link back under PUBLIC_URL.',
      event: 'new_hosts',
      required: ['event', 'delivery_id', 'source', 'scan_id', 'domain', 'platform', 'new_count', 'hosts', 'truncated'],
      properties: {
        event: { type: 'string', enum: ['new_hosts'] },
        delivery_id: { type: 'string', format: 'uuid' },
        source: {
          type: 'string',
          enum: ['scan', 'ct'],
          description:
            'scan: the new hosts of one scan; ct: hosts the CT log follower recorded for the domain, ' +
            'gathered for CT_WEBHOOK_GATHER_SECONDS',
        },
        scan_id: {
          type: ['string', 'null'],
          format: 'uuid',
          description: 'The scan, for source scan; null for source ct',
        },
        domain: { type: 'string', example: 'example.com' },
        platform: { type: 'string', example: 'hackerone' },
        new_count: {
          type: 'integer',
          description: 'How many new hosts the scan (or the follower, in this delivery) recorded',
        },
        hosts: {
          type: 'array',
          description: `The new hosts, oldest first, at most ${MAX_HOSTS_PER_DELIVERY}`,
          items: {
            type: 'object',
            required: ['host', 'first_seen_at'],
            additionalProperties: false,
            properties: {
              host: { type: 'string', example: 'api.example.com' },
              first_seen_at: { type: 'string', format: 'date-time' },
              ...FIELD_PROPERTIES,
            },
          },
        },
        truncated: {
          type: 'boolean',
          description:
            'true when new_count is above the hosts listed: page the rest from /domains/{domain}/subdomains/new',
        },
      },
    }),
  },

  hostEvents: {
    post: deliveryOperation({
      operationId: 'hostEvents',
      summary: 'Changes of hosts (sent to your URL)',
      description:
        'For webhooks whose --types name other changes: host_gone, host_back, dns_changed, http_changed, ' +
        'takeover_candidate, wildcard_detected. Each change of those types, of the domains the webhook is for, is ' +
        'told exactly once: a delivery gathers the changes of one domain for CT_WEBHOOK_GATHER_SECONDS (10), then ' +
        'later changes go to the next. The events are those of GET /api/v1/events, with the same ids. Delivery, ' +
        'retries, redirects and the signature are as for newHosts. --format slack and discord send a message ' +
        'naming the count and the domain, and a line per change (up to 25), such as `dns_changed ' +
        'api.example.com: 192.0.2.1 → 192.0.2.9`; titles lose control characters and backticks and are cut to ' +
        '60 characters.',
      event: 'host_events',
      required: ['event', 'delivery_id', 'domain', 'platform', 'event_count', 'events', 'truncated'],
      properties: {
        event: { type: 'string', enum: ['host_events'] },
        delivery_id: { type: 'string', format: 'uuid' },
        domain: { type: 'string', example: 'example.com' },
        platform: { type: 'string', example: 'hackerone' },
        event_count: { type: 'integer', description: 'How many changes this delivery tells of' },
        events: EVENTS,
        truncated: {
          type: 'boolean',
          description: 'true when event_count is above the events listed: read the rest from /api/v1/events',
        },
      },
    }),
  },

  digest: {
    post: deliveryOperation({
      operationId: 'digest',
      summary: 'A digest of a window (sent to your URL)',
      description:
        'For webhooks with digest_minutes: one POST per window of that many minutes in which anything happened ' +
        '(none for a window where nothing did), sent WEBHOOK_DIGEST_LAG_SECONDS (30) after it ends: the new ' +
        'hosts (host_new in its types) and the changes of its other types, across its platforms and domains, of ' +
        'its scope. With resolving_only, the new hosts whose DNS answer is resolved when the digest is made. ' +
        'Delivery, retries, redirects and the signature are as for newHosts. Chat formats send a message naming ' +
        'the counts and the window, and a line per host (with its platform and program) and change, up to 25.',
      event: 'digest',
      required: [
        'event',
        'delivery_id',
        'window_from',
        'window_to',
        'new_count',
        'hosts',
        'event_count',
        'events',
        'truncated',
      ],
      properties: {
        event: { type: 'string', enum: ['digest'] },
        delivery_id: { type: 'string', format: 'uuid' },
        window_from: { type: 'string', format: 'date-time', description: 'The window: from this instant…' },
        window_to: { type: 'string', format: 'date-time', description: '…to this one (excluded)' },
        new_count: { type: 'integer', description: 'New hosts of the window' },
        hosts: {
          type: 'array',
          description: `The new hosts, oldest first, at most ${MAX_HOSTS_PER_DELIVERY}`,
          items: {
            type: 'object',
            required: ['host', 'domain', 'platform', 'program', 'first_seen_at'],
            additionalProperties: false,
            properties: {
              host: { type: 'string', example: 'api.example.com' },
              domain: { type: 'string', example: 'example.com' },
              platform: { type: 'string', example: 'hackerone' },
              program: { type: ['string', 'null'], example: 'Example' },
              first_seen_at: { type: 'string', format: 'date-time' },
            },
          },
        },
        event_count: { type: 'integer', description: 'Changes of the window' },
        events: EVENTS,
        truncated: {
          type: 'boolean',
          description: 'true when new_count or event_count is above what is listed',
        },
      },
    }),
  },
};
