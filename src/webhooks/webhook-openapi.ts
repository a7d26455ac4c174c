import type { WebhooksObject } from '@nestjs/swagger';
import { DELIVERY_HEADER, EVENT_HEADER, MAX_HOSTS_PER_DELIVERY, SIGNATURE_HEADER } from './webhook-payload.js';

const header = (name: string, description: string, required = true) => ({
  name,
  in: 'header' as const,
  required,
  description,
  schema: { type: 'string' },
});

/**
 * The webhook an operator registers with `cli webhooks add` (OpenAPI 3.1's `webhooks`): what the worker POSTs
 * after each scan that recorded new hosts.
 */
export const WEBHOOKS_OPENAPI: WebhooksObject = {
  newHosts: {
    post: {
      operationId: 'newHosts',
      summary: 'New hosts of a scan (sent to your URL)',
      description:
        'One POST per webhook after each scan that recorded new hosts, for webhooks of every domain, of the ' +
        "scan's platform (--platform) or of its domain (--domain). Any 2xx answer within WEBHOOK_TIMEOUT_SECONDS " +
        '(10) delivers it; anything else is retried after WEBHOOK_RETRY_SECONDS (30), four times longer each time, ' +
        'up to WEBHOOK_MAX_ATTEMPTS (6), then given up. Redirects are not followed. A retry sends the same body ' +
        `and ${DELIVERY_HEADER}, so a receiver can drop a delivery it already has. \`cli webhooks list\` shows ` +
        'each webhook\'s deliveries, failures and last status. --format slack sends `{"text": …}` and discord ' +
        '`{"content": …}` (at most 2,000 characters): a message naming the count, the domain and up to 25 hosts.',
      parameters: [
        header(EVENT_HEADER, 'Always new_hosts'),
        header(DELIVERY_HEADER, "The delivery's id, the same on every attempt"),
        header(
          SIGNATURE_HEADER,
          'With --secret only: sha256=<hex HMAC-SHA256 of the raw body, keyed with the secret>. Compare it in ' +
            'constant time before trusting the body.',
          false,
        ),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: [
                'event',
                'delivery_id',
                'source',
                'scan_id',
                'domain',
                'platform',
                'new_count',
                'hosts',
                'truncated',
              ],
              additionalProperties: false,
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
                    },
                  },
                },
                truncated: {
                  type: 'boolean',
                  description:
                    'true when new_count is above the hosts listed: page the rest from /domains/{domain}/subdomains/new',
                },
              },
            },
          },
        },
      },
      // The receiver checks the signature header; no security scheme of the API applies to what it is sent.
      security: [],
      responses: { '2XX': { description: 'Delivered; any other answer, or none in time, is retried' } },
    },
  },
};
