import type { ScopeMode } from '../hosts/model/knowledge-filter.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { affected, isoSql, rows } from '../database/sql.js';
import { SOURCE_BITS } from '../hosts/model/host-sources.js';
import type { EventType } from '../events/dto/events.query.js';
import { type EventRow, EVENT_COLUMNS } from '../events/events.repository.js';
import type { WebhookFormat } from './webhook-payload.js';

/** What a delivery tells of: the new hosts of a scan or of the CT log follower, or changes of other types. */
export type DeliveryKind = 'new_hosts' | 'host_events' | 'test' | 'digest';

export interface NewWebhook {
  /** The user of the key that made it; null for the operator's (the CLI's). */
  owner: string | null;
  url: string;
  /** Only these platforms' domains; null: all. */
  platforms: string[] | null;
  /** Only these domains; null: all. */
  domainIds: number[] | null;
  scope: string;
  digestMinutes: number | null;
  resolvingOnly: boolean;
  format: WebhookFormat;
  secret: string | null;
  /** The change types it hears of; host_new is the new hosts of scans and the CT log follower. */
  types: EventType[];
  /** Telegram's chat id. */
  chatId: string | null;
}

export interface WebhookRow {
  id: string;
  owner: string | null;
  url: string;
  /** null: every platform. */
  platforms: string[] | null;
  /** null: every domain (a removed domain drops out of the list). */
  domains: string[] | null;
  scope: ScopeMode;
  digest_minutes: number | null;
  resolving_only: boolean;
  format: WebhookFormat;
  types: EventType[];
  has_secret: boolean;
  created_at: string;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  failures: number;
  delivered: number;
  given_up: number;
  /** When the current run of failed attempts began; null after a success. */
  failing_since: string | null;
  /** When the webhook was paused (failing for WEBHOOK_PAUSE_HOURS in a row); null while it is active. */
  paused_at: string | null;
}

/** paused (see PAUSE_AFTER_HOURS), failing (its last attempt failed) or active. */
export type WebhookState = 'active' | 'failing' | 'paused';

export function webhookState(w: Pick<WebhookRow, 'paused_at' | 'failing_since'>): WebhookState {
  return w.paused_at ? 'paused' : w.failing_since ? 'failing' : 'active';
}

/** One delivery of a webhook, as its owner sees it. */
/** A delivery as the API and the account page show it, from webhook_deliveries x and its scan s. */
const DELIVERY_COLUMNS = `x.id, x.kind, ${isoSql('x.created_at')} AS created_at,
       coalesce(s.new_count, x.new_count, 0) AS event_count,
       coalesce(x.outcome, 'pending') AS status, x.attempts, ${isoSql('x.last_attempt_at')} AS last_attempt_at,
       x.last_status AS http_status, x.duration_ms, x.last_error AS error,
       CASE WHEN x.done_at IS NULL THEN ${isoSql('x.next_attempt_at')} END AS next_attempt_at`;

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

/** A run of failed attempts this long pauses a webhook. */
export const PAUSE_AFTER_HOURS = 24;

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
  domain: string;
  platform: string;
  program: string | null;
  /** New hosts, or for host_events the events it gathered. */
  new_count: number;
}

const WEBHOOK_COLUMNS = `w.id, w.owner, w.url, w.platforms,
  CASE WHEN w.domain_ids IS NOT NULL THEN
    coalesce((SELECT array_agg(d.domain ORDER BY d.domain) FROM domains d WHERE d.id = ANY (w.domain_ids)), '{}')
  END AS domains, w.scope, w.digest_minutes, w.resolving_only, w.format, w.types,
  w.secret IS NOT NULL AS has_secret, ${isoSql('w.created_at')} AS created_at,
  ${isoSql('w.last_attempt_at')} AS last_attempt_at, w.last_status, w.last_error, w.failures, w.delivered,
  w.given_up, ${isoSql('w.failing_since')} AS failing_since, ${isoSql('w.paused_at')} AS paused_at`;

/** The host whose id is `hostId` is of the scope of webhook `w` (in, out or all), by its domain's exclusion rules. */
const ofWebhookScope = (hostId: string, w: string) =>
  `(${w}.scope = 'all'
    OR (${w}.scope = 'out') = EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${hostId} AND k.out_of_scope))`;

/**
 * A host `h` the webhook `w` tells of: never a wildcard echo, and of the webhook's scope (in: no exclusion rule
 * names it; out: one does; all).
 */
const toldTo = (h: string, w: string) =>
  `NOT EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${h}.id AND k.wildcard)
   AND ${ofWebhookScope(`${h}.id`, w)}`;

/** The webhook `w` hears of the domain `d`: it lists neither platforms nor domains, or lists it. */
const hearsOf = (w: string, d: string) =>
  `(${w}.domain_ids IS NULL OR ${d}.id = ANY (${w}.domain_ids))
   AND (${w}.platforms IS NULL OR ${d}.platform_slug = ANY (${w}.platforms))`;

/**
 * The webhooks that hear of a domain's new hosts as they come (digests read them when they are made): those of
 * its platform and domain filters that subscribe to host_new. (Other types are queued by the host_events trigger,
 * migration WebhookFilters.)
 */
const MATCHING_WEBHOOKS = `SELECT w.id, w.scope FROM webhooks w JOIN domains d ON d.id = $1
  WHERE ${hearsOf('w', 'd')} AND 'host_new' = ANY (w.types) AND w.digest_minutes IS NULL`;

/**
 * Queues one delivery per matching webhook for a scan that recorded new hosts, inside the scan's own commit: a
 * scan and its deliveries are saved together or not at all.
 */
export async function enqueueDeliveries(m: EntityManager, scanId: string, domainId: number): Promise<void> {
  // A scan whose new hosts are all wildcard echoes or out of scope tells nobody anything (hosts_domain_feed_idx).
  await affected(
    m,
    `INSERT INTO webhook_deliveries (webhook_id, scan_id) SELECT id, $2 FROM (${MATCHING_WEBHOOKS}) w
      WHERE EXISTS (SELECT 1 FROM scans s JOIN hosts h ON h.domain_id = s.domain_id AND h.first_seen_at >= s.started_at
                     WHERE s.id = $2 AND ${toldTo('h', 'w')})`,
    [domainId, scanId],
  );
}

/**
 * Tells the matching webhooks of the hosts the CT log follower recorded for a domain in this transaction (first
 * seen at its now(), hosts_domain_feed_idx; those out of scope left out, and nothing queued when none is left),
 * inside that transaction. A delivery of the follower for the same webhook and domain
 * that no worker has tried yet takes them in (its window widens to now, its count grows); otherwise a new one is
 * queued, sent `gatherSeconds` (CT_WEBHOOK_GATHER_SECONDS) later so a burst of pages makes one message. A delivery a worker has
 * taken meanwhile is locked, then no longer untried, so the hosts go to a new one: none is told twice or missed.
 */
export async function enqueueCtDeliveries(m: EntityManager, domainId: number, gatherSeconds: number): Promise<void> {
  await affected(
    m,
    `WITH targets AS (
       SELECT w.id, (SELECT count(*)::int FROM hosts h
                      WHERE h.domain_id = $1 AND h.first_seen_at = now() AND ${toldTo('h', 'w')}) AS n
         FROM (${MATCHING_WEBHOOKS}) w
     ), told AS (
       SELECT id, n FROM targets WHERE n > 0
     ), widened AS (
       UPDATE webhook_deliveries x SET window_to = now(), new_count = x.new_count + t.n
         FROM told t
        WHERE x.webhook_id = t.id AND x.domain_id = $1 AND x.scan_id IS NULL
          AND x.kind = 'new_hosts' AND x.attempts = 0 AND x.done_at IS NULL
       RETURNING x.webhook_id
     )
     INSERT INTO webhook_deliveries (webhook_id, domain_id, window_from, window_to, new_count, next_attempt_at)
     SELECT id, $1, now(), now(), n, now() + make_interval(secs => $2) FROM told
      WHERE id NOT IN (SELECT webhook_id FROM widened)`,
    [domainId, gatherSeconds],
  );
}

/** A new host as a digest lists it. */
export interface DigestHost {
  host: string;
  domain: string;
  platform: string;
  program: string | null;
  first_seen_at: string;
}

/**
 * The new hosts of a digest's window (`x`: id, window_from, window_to) that its webhook tells of: first seen in
 * the window (hosts_new_feed_idx), of its filters and scope, resolving when it asks for that, if it subscribes
 * to host_new.
 */
const DIGEST_HOSTS = (select: string, x: string, tail = '') =>
  `SELECT ${select} FROM webhooks w JOIN hosts h ON h.first_seen_at >= ${x}.window_from
                                               AND h.first_seen_at < ${x}.window_to
     JOIN domains d ON d.id = h.domain_id
    WHERE w.id = ${x}.id AND 'host_new' = ANY (w.types) AND ${hearsOf('w', 'd')} AND ${toldTo('h', 'w')}
      AND (NOT w.resolving_only
           OR EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = h.id AND k.dns_status = 'resolved'))
    ${tail}`;

/** The changes of a digest's window of its webhook's types, filters and scope (host_events_feed_idx). */
const DIGEST_EVENTS = (select: string, x: string, tail = '') =>
  `SELECT ${select} FROM webhooks w JOIN host_events e ON e.at >= ${x}.window_from AND e.at < ${x}.window_to
                                                     AND e.type = ANY (w.types)
     JOIN hosts h ON h.id = e.host_id JOIN domains d ON d.id = h.domain_id
    WHERE w.id = ${x}.id AND ${hearsOf('w', 'd')}
      AND (e.type = 'scope_changed' OR ${ofWebhookScope('h.id', 'w')})
    ${tail}`;

@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async add(webhook: NewWebhook): Promise<string> {
    const [row] = await rows<{ id: string }>(
      this.db,
      `INSERT INTO webhooks (url, platforms, domain_ids, format, secret, types, owner, chat_id, scope, digest_minutes,
                             resolving_only, digest_through)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $10::int IS NOT NULL THEN now() END)
       RETURNING id`,
      [
        webhook.url,
        webhook.platforms,
        webhook.domainIds,
        webhook.format,
        webhook.secret,
        webhook.types,
        webhook.owner,
        webhook.chatId,
        webhook.scope,
        webhook.digestMinutes,
        webhook.resolvingOnly,
      ],
    );
    return row.id;
  }

  /** Every webhook (the operator's view), or one owner's (`owner`), oldest first. */
  list(owner?: string): Promise<WebhookRow[]> {
    return rows<WebhookRow>(
      this.db,
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks w
        WHERE $1::text IS NULL OR w.owner = $1
        ORDER BY w.created_at, w.id`,
      [owner ?? null],
    );
  }

  /**
   * One webhook of an owner (null: the operator's); null when there is none with that id, or it is another
   * owner's.
   */
  async findOwned(id: string, owner: string | null): Promise<WebhookRow | null> {
    const [row] = await rows<WebhookRow>(
      this.db,
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks w WHERE w.id = $1 AND w.owner IS NOT DISTINCT FROM $2`,
      [id, owner],
    );
    return row ?? null;
  }

  /** What a test delivery needs beyond the row: the secret it is signed with, and Telegram's chat id. */
  async sendingOf(id: string): Promise<{ secret: string | null; chat_id: string | null }> {
    const [row] = await rows<{ secret: string | null; chat_id: string | null }>(
      this.db,
      `SELECT secret, chat_id FROM webhooks WHERE id = $1`,
      [id],
    );
    return row ?? { secret: null, chat_id: null };
  }

  /** Removes webhooks by id or URL (with their pending deliveries); returns the ids removed. */
  async remove(idOrUrl: string): Promise<string[]> {
    const removed = await rows<{ id: string }>(
      this.db,
      `DELETE FROM webhooks WHERE url = $1 OR id::text = lower($1) RETURNING id`,
      [idOrUrl],
    );
    return removed.map((r) => r.id);
  }

  /** Removes an owner's webhook with its deliveries; false when there is none with that id, or it is another user's. */
  async removeOwned(id: string, owner: string): Promise<boolean> {
    return (await affected(this.db, `DELETE FROM webhooks WHERE id = $1 AND owner = $2`, [id, owner])) > 0;
  }

  /** A webhook's latest deliveries, newest first (webhook_deliveries_recent_idx). */
  deliveries(webhookId: string, limit: number, deliveryId?: string): Promise<DeliveryRow[]> {
    return rows<DeliveryRow>(
      this.db,
      `SELECT ${DELIVERY_COLUMNS}
         FROM webhook_deliveries x LEFT JOIN scans s ON s.id = x.scan_id
        WHERE x.webhook_id = $1 AND ($3::uuid IS NULL OR x.id = $3)
        ORDER BY x.created_at DESC, x.id DESC LIMIT $2`,
      [webhookId, limit, deliveryId ?? null],
    );
  }

  /** The newest `limit` deliveries of each of these webhooks, in one statement (the account page lists them all). */
  async recentDeliveries(webhookIds: string[], limit: number): Promise<Map<string, DeliveryRow[]>> {
    const found = new Map<string, DeliveryRow[]>(webhookIds.map((id) => [id, []]));
    if (webhookIds.length === 0) return found;
    const listed = await rows<DeliveryRow & { webhook_id: string }>(
      this.db,
      `SELECT w.id::text AS webhook_id, d.*
         FROM unnest($1::uuid[]) AS w(id)
        CROSS JOIN LATERAL (
          SELECT ${DELIVERY_COLUMNS}
            FROM webhook_deliveries x LEFT JOIN scans s ON s.id = x.scan_id
           WHERE x.webhook_id = w.id
           ORDER BY x.created_at DESC, x.id DESC LIMIT $2) d`,
      [webhookIds, limit],
    );
    for (const { webhook_id, ...delivery } of listed) found.get(webhook_id)?.push(delivery);
    return found;
  }

  /**
   * Sends a delivery again: a pending one at once, a delivered or given-up one anew, with the full run of
   * attempts; a delivery an attempt holds right now is left to it. Resumes a paused webhook. Returns the delivery,
   * or null when the webhook has no such delivery.
   */
  async retry(webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
    const touched = await affected(
      this.db,
      `WITH again AS (
         UPDATE webhook_deliveries SET done_at = NULL, outcome = NULL, attempts = 0, next_attempt_at = now(),
                gathering = false
          WHERE id = $2 AND webhook_id = $1 AND (lease_until IS NULL OR lease_until < now())
          RETURNING 1
       )
       UPDATE webhooks SET paused_at = NULL, failing_since = NULL
        WHERE id = $1 AND EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $2 AND webhook_id = $1)`,
      [webhookId, deliveryId],
    );
    if (touched === 0) return null;
    const [row] = await this.deliveries(webhookId, 1, deliveryId);
    return row ?? null;
  }

  /**
   * Records a test delivery, attempted at once and never retried, with the others; a success resumes a paused
   * webhook. Returns the delivery as recorded.
   */
  async recordTest(
    webhookId: string,
    deliveryId: string,
    result: { ok: boolean; status: number | null; error: string | null; durationMs: number },
  ): Promise<DeliveryRow> {
    await affected(
      this.db,
      `WITH test AS (
         INSERT INTO webhook_deliveries (id, webhook_id, kind, attempts, last_attempt_at, last_status, last_error,
                                         duration_ms, done_at, outcome, new_count)
         VALUES ($2, $1, 'test', 1, now(), $3, $4, $5, now(), CASE WHEN $6 THEN 'delivered' ELSE 'given_up' END, 0)
         RETURNING 1
       )
       UPDATE webhooks SET last_attempt_at = now(), last_status = $3, last_error = $4,
              paused_at = CASE WHEN $6 THEN NULL ELSE paused_at END,
              failing_since = CASE WHEN $6 THEN NULL ELSE failing_since END
        WHERE id = $1 AND EXISTS (SELECT 1 FROM test)`,
      [webhookId, deliveryId, result.status, result.error, result.durationMs, result.ok],
    );
    const [row] = await this.deliveries(webhookId, 1, deliveryId);
    return row;
  }

  /**
   * Takes up to `limit` due deliveries for `leaseSeconds`, counting the attempt; a worker that dies holding one
   * lets its lease run out, and another takes it. One delivery per webhook at a time, the earliest due first: a
   * webhook with a delivery in flight (a live lease, in any process) gets none, so a slow endpoint holds up only
   * its own deliveries, and they reach it in order. The not-done deliveries are read once
   * (webhook_deliveries_due_idx holds only those); the rows taken are locked again and checked, so two workers
   * never take the same one, nor two of one webhook. A delivery of changes that is still gathering is due
   * `gatherSeconds` after it was created; the claim ends its gathering.
   */
  claimDue(limit: number, leaseSeconds: number, gatherSeconds: number): Promise<ClaimedDelivery[]> {
    const dueAt = (x: string) =>
      `CASE WHEN ${x}.gathering THEN greatest(${x}.next_attempt_at, ${x}.created_at + make_interval(secs => $3))
            ELSE ${x}.next_attempt_at END`;
    return rows<ClaimedDelivery>(
      this.db,
      `WITH pending AS MATERIALIZED (
         SELECT id, webhook_id, created_at, ${dueAt('p')} AS due_at, lease_until >= now() AS in_flight
           FROM webhook_deliveries p
          WHERE done_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = p.webhook_id AND w.paused_at IS NOT NULL)
       ), head AS (
         SELECT DISTINCT ON (webhook_id) id, in_flight, due_at FROM pending
          WHERE in_flight OR due_at <= now()
          ORDER BY webhook_id, in_flight DESC NULLS LAST, due_at, created_at, id
       ), due AS (
         SELECT x.id FROM webhook_deliveries x JOIN head ON head.id = x.id AND head.in_flight IS NOT TRUE
          WHERE x.done_at IS NULL AND ${dueAt('x')} <= now() AND (x.lease_until IS NULL OR x.lease_until < now())
          ORDER BY head.due_at LIMIT $1 FOR UPDATE OF x SKIP LOCKED
       ), taken AS (
         UPDATE webhook_deliveries x SET attempts = x.attempts + 1, gathering = false,
                lease_until = now() + make_interval(secs => $2)
           FROM due WHERE x.id = due.id
         RETURNING x.id, x.kind, x.webhook_id, x.scan_id, x.attempts, x.lease_until, x.domain_id, x.window_from,
                   x.window_to, x.new_count
       )
       SELECT t.id, t.kind, ${isoSql('t.lease_until')} AS lease_until, t.webhook_id, t.scan_id, t.attempts, w.url,
              w.format,
              w.secret, w.chat_id, d.id AS domain_id, coalesce(d.domain, '') AS domain,
              coalesce(d.platform_slug, '') AS platform, d.program,
              ${isoSql('t.window_from')} AS window_from, ${isoSql('t.window_to')} AS window_to,
              CASE WHEN s.id IS NULL THEN t.new_count
                   ELSE (SELECT count(*) FROM hosts h
                          WHERE h.domain_id = s.domain_id AND h.first_seen_at >= s.started_at
                            AND h.first_seen_at <= s.finished_at AND ${toldTo('h', 'w')})::int
              END AS new_count
         FROM taken t JOIN webhooks w ON w.id = t.webhook_id LEFT JOIN scans s ON s.id = t.scan_id
         LEFT JOIN domains d ON d.id = coalesce(s.domain_id, t.domain_id)`,
      [limit, leaseSeconds, gatherSeconds],
    );
  }

  /**
   * Opens a delivery of kind digest for each digest webhook whose window has ended (`lagSeconds` ago, so that the
   * writes of transactions still open as it ended are in), when anything happened in it: new hosts of its filters
   * (host_new) or changes of its types. A window where nothing happened is passed over with no delivery. Each
   * webhook is locked while its window moves on, so two workers never open the same window. Returns how many
   * were opened.
   */
  async openDigests(lagSeconds: number): Promise<number> {
    return affected(
      this.db,
      `WITH due AS (
         SELECT w.id, w.digest_through AS window_from, now() - make_interval(secs => $1) AS window_to
           FROM webhooks w
          WHERE w.digest_minutes IS NOT NULL AND w.paused_at IS NULL
            AND w.digest_through + make_interval(mins => w.digest_minutes) <= now() - make_interval(secs => $1)
          FOR UPDATE SKIP LOCKED
       ), counted AS (
         SELECT due.*, (${DIGEST_HOSTS('count(*)::int', 'due')}) + (${DIGEST_EVENTS('count(*)::int', 'due')}) AS n
           FROM due
       ), moved AS (
         UPDATE webhooks w SET digest_through = c.window_to FROM counted c WHERE w.id = c.id RETURNING 1
       )
       INSERT INTO webhook_deliveries (webhook_id, kind, window_from, window_to, new_count)
       SELECT id, 'digest', window_from, window_to, n FROM counted WHERE n > 0`,
      [lagSeconds],
    );
  }

  /** What a digest tells of, oldest first: its window's new hosts and changes, up to `limit` of each. */
  async digestOf(
    delivery: ClaimedDelivery,
    limit: number,
  ): Promise<{ hosts: DigestHost[]; host_count: number; events: EventRow[]; event_count: number }> {
    const window = `(SELECT $1::uuid AS id, $2::timestamptz AS window_from, $3::timestamptz AS window_to)`;
    const params = [delivery.webhook_id, delivery.window_from, delivery.window_to];
    const [counts] = await rows<{ host_count: number; event_count: number }>(
      this.db,
      `SELECT (${DIGEST_HOSTS('count(*)::int', 'x')}) AS host_count, (${DIGEST_EVENTS('count(*)::int', 'x')}) AS event_count
         FROM ${window} x`,
      params,
    );
    const hosts = await rows<DigestHost>(
      this.db,
      `SELECT t.* FROM ${window} x, LATERAL (${DIGEST_HOSTS(
        `h.host, d.domain, d.platform_slug AS platform, d.program, ${isoSql('h.first_seen_at')} AS first_seen_at`,
        'x',
        'ORDER BY h.first_seen_at, h.id LIMIT $4',
      )}) t`,
      [...params, limit],
    );
    const events = await rows<EventRow>(
      this.db,
      `SELECT t.* FROM ${window} x, LATERAL (${DIGEST_EVENTS(EVENT_COLUMNS, 'x', 'ORDER BY e.at, e.id LIMIT $4')}) t`,
      [...params, limit],
    );
    return { hosts, host_count: counts.host_count, events, event_count: counts.event_count };
  }

  /** The changes a host_events delivery tells of, oldest first, as the change feed shows them. */
  eventsOf(delivery: ClaimedDelivery, limit: number): Promise<EventRow[]> {
    return rows<EventRow>(
      this.db,
      `SELECT ${EVENT_COLUMNS}
         FROM webhook_delivery_events x JOIN host_events e ON e.id = x.event_id
         JOIN hosts h ON h.id = e.host_id JOIN domains d ON d.id = h.domain_id
        WHERE x.delivery_id = $1
        ORDER BY e.at, e.id LIMIT $2`,
      [delivery.id, limit],
    );
  }

  /**
   * The hosts a delivery tells of, oldest first (hosts_domain_feed_idx): those a scan recorded first (first seen
   * while it ran; wildcard echoes left out, and out of its new_count), or those the CT log follower recorded first
   * in the delivery's window.
   */
  newHostsOf(delivery: ClaimedDelivery, limit: number): Promise<{ host: string; first_seen_at: string }[]> {
    if (delivery.scan_id === null) {
      return rows(
        this.db,
        `SELECT h.host, ${isoSql('h.first_seen_at')} AS first_seen_at FROM hosts h JOIN webhooks w ON w.id = $5
          WHERE h.domain_id = $1 AND h.first_seen_at BETWEEN $2::timestamptz AND $3::timestamptz
            AND (h.sources & ${SOURCE_BITS.ct}) <> 0 AND ${toldTo('h', 'w')}
          ORDER BY h.first_seen_at, h.id LIMIT $4`,
        [delivery.domain_id, delivery.window_from, delivery.window_to, limit, delivery.webhook_id],
      );
    }
    return rows(
      this.db,
      `SELECT h.host, ${isoSql('h.first_seen_at')} AS first_seen_at
         FROM scans s JOIN hosts h ON h.domain_id = s.domain_id JOIN webhooks w ON w.id = $3
        WHERE s.id = $1 AND h.first_seen_at >= s.started_at AND h.first_seen_at <= s.finished_at
          AND ${toldTo('h', 'w')}
        ORDER BY h.first_seen_at, h.id LIMIT $2`,
      [delivery.scan_id, limit, delivery.webhook_id],
    );
  }

  /**
   * Records an attempt: delivered, failed with a retry after `retryAfterSeconds`, or failed for good (null). A
   * worker whose lease ran out (another took the delivery up) records nothing.
   */
  async record(
    delivery: ClaimedDelivery,
    result: { ok: boolean; status: number | null; error: string | null; durationMs?: number },
    retryAfterSeconds: number | null,
  ): Promise<void> {
    const outcome = result.ok ? 'delivered' : retryAfterSeconds === null ? 'given_up' : null;
    await affected(
      this.db,
      `WITH attempt AS (
         UPDATE webhook_deliveries SET last_status = $2, last_error = $3, lease_until = NULL, outcome = $4,
                last_attempt_at = now(), duration_ms = $9,
                done_at = CASE WHEN $4::text IS NULL THEN NULL ELSE now() END,
                next_attempt_at = now() + make_interval(secs => coalesce($5::float8, 0))
          WHERE id = $1 AND lease_until = $8::timestamptz
          RETURNING 1
       )
       UPDATE webhooks SET last_attempt_at = now(), last_status = $2, last_error = $3,
              failures = CASE WHEN $6 THEN 0 ELSE failures + 1 END,
              delivered = delivered + CASE WHEN $4 = 'delivered' THEN 1 ELSE 0 END,
              given_up = given_up + CASE WHEN $4 = 'given_up' THEN 1 ELSE 0 END,
              failing_since = CASE WHEN $6 THEN NULL ELSE coalesce(failing_since, now()) END,
              paused_at = CASE WHEN NOT $6 AND failing_since <= now() - make_interval(hours => ${PAUSE_AFTER_HOURS})
                               THEN coalesce(paused_at, now()) ELSE paused_at END
        WHERE id = $7 AND EXISTS (SELECT 1 FROM attempt)`,
      [
        delivery.id,
        result.status,
        result.error,
        outcome,
        retryAfterSeconds,
        result.ok,
        delivery.webhook_id,
        delivery.lease_until,
        result.durationMs ?? null,
      ],
    );
  }

  /** Gives a delivery taken but not attempted back (the worker is stopping): it is due again at once. */
  async release(delivery: ClaimedDelivery): Promise<void> {
    await affected(
      this.db,
      `UPDATE webhook_deliveries SET lease_until = NULL, attempts = attempts - 1
        WHERE id = $1 AND lease_until = $2::timestamptz`,
      [delivery.id, delivery.lease_until],
    );
  }
}
