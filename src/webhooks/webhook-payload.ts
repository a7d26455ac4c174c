import { createHmac } from 'node:crypto';

export const WEBHOOK_FORMATS = ['json', 'slack', 'discord'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The most hosts one delivery lists; `new_count` always tells how many the scan found. */
export const MAX_HOSTS_PER_DELIVERY = 1000;
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

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes with the webhook's secret. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function chatText(batch: NewHostsBatch, max: number): string {
  const noun = batch.newCount === 1 ? 'host' : 'hosts';
  const from = batch.scanId === null ? ', from the CT logs' : '';
  const head = `${batch.newCount} new ${noun} on ${batch.domain} (${batch.platform})${from}`;
  let shown = Math.min(batch.hosts.length, CHAT_LINES);
  for (;;) {
    const more = batch.newCount - shown;
    const lines = batch.hosts.slice(0, shown).map((h) => h.host);
    const text = `${head}\n\`\`\`\n${lines.join('\n')}\n\`\`\`${more > 0 ? `\n… and ${more} more` : ''}`;
    if (text.length <= max || shown === 0) return text.slice(0, max);
    shown--;
  }
}
