import type { WebhookFormat } from './channels/index.js';
import type { HostField } from '../hosts/model/host-fields.js';

/** What a delivery tells of: the new hosts of a scan or of the CT log follower, or changes of other types. */
export type DeliveryKind = 'new_hosts' | 'host_events' | 'test' | 'digest';

/** One delivery of a webhook, as its owner sees it (the API and the account page). */
export interface DeliveryRow {
  id: string;
  kind: DeliveryKind;
  created_at: string;
  /** Hosts (new_hosts), changes (host_events) or 0 (test) it tells of. */
  event_count: number;
  status: 'pending' | 'delivered' | 'given_up';
  attempts: number;
  last_attempt_at: string | null;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
}

/**
 * A delivery taken by a worker: where it goes, how, and what it tells of (what a scan or the CT log follower
 * found, or the changes it gathered).
 */
export interface ClaimedDelivery {
  id: string;
  kind: DeliveryKind;
  /** The lease this worker holds: results are recorded only while it still does. */
  lease_until: string;
  webhook_id: string;
  /** The scan whose new hosts it tells of; null for the CT log follower's, which name a domain and a window. */
  scan_id: string | null;
  domain_id: number;
  window_from: string | null;
  window_to: string | null;
  attempts: number;
  url: string;
  format: WebhookFormat;
  secret: string | null;
  /** Telegram's chat id. */
  chat_id: string | null;
  /** What is known of each new host the webhook's deliveries carry. */
  fields: HostField[];
  domain: string;
  platform: string;
  program: string | null;
  /** New hosts, or for host_events the events it gathered. */
  new_count: number;
}
