import { hiddenConditions } from '../intel/knowledge-filter.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { affected, isoSql, rows } from '../database/sql.js';
import { SOURCE_BITS } from '../hosts/host-sources.js';
import type { EventType } from '../events/dto/events.query.js';
import { type EventRow, EVENT_COLUMNS } from '../events/events.repository.js';
import type { WebhookFormat } from './webhook-payload.js';

/** What a delivery tells of: the new hosts of a scan or of the CT log follower, or changes of other types. */
export type DeliveryKind = 'new_hosts' | 'host_events';

export interface NewWebhook {
  url: string;
  platform: string | null;
  domainId: number | null;
  format: WebhookFormat;
  secret: string | null;
  /** The change types it hears of; host_new is the new hosts of scans and the CT log follower. */
  types: EventType[];
}

export interface WebhookRow {
  id: string;
  url: string;
  platform: string | null;
  domain: string | null;
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
  domain: string;
  platform: string;
  /** New hosts, or for host_events the events it gathered. */
  new_count: number;
}

/** A host `h` that is neither a wildcard echo nor out of scope: webhooks never tell of those. */
const SHOWN = hiddenConditions('exclude', 'in')[0];

/**
 * The webhooks that hear of a domain's new hosts: all, its platform's, or its own, that subscribe to host_new.
 * (Other types are queued by the host_events trigger, migration WebhookEventTypes.)
 */
const MATCHING_WEBHOOKS = `SELECT w.id FROM webhooks w JOIN domains d ON d.id = $1
  WHERE (w.domain_id IS NULL OR w.domain_id = d.id) AND (w.platform_slug IS NULL OR w.platform_slug = d.platform_slug)
    AND 'host_new' = ANY (w.types)`;

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
                     WHERE s.id = $2 AND ${SHOWN})`,
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
    `WITH fresh AS (
       SELECT count(*)::int AS n FROM hosts h WHERE h.domain_id = $1 AND h.first_seen_at = now() AND ${SHOWN}
     ), targets AS (${MATCHING_WEBHOOKS} AND (SELECT n FROM fresh) > 0),
     widened AS (
       UPDATE webhook_deliveries x SET window_to = now(), new_count = x.new_count + (SELECT n FROM fresh)
        WHERE x.webhook_id IN (SELECT id FROM targets) AND x.domain_id = $1 AND x.scan_id IS NULL
          AND x.kind = 'new_hosts' AND x.attempts = 0 AND x.done_at IS NULL
       RETURNING x.webhook_id
     )
     INSERT INTO webhook_deliveries (webhook_id, domain_id, window_from, window_to, new_count, next_attempt_at)
     SELECT id, $1, now(), now(), (SELECT n FROM fresh), now() + make_interval(secs => $2) FROM targets
      WHERE id NOT IN (SELECT webhook_id FROM widened)`,
    [domainId, gatherSeconds],
  );
}

@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async add(webhook: NewWebhook): Promise<string> {
    const [row] = await rows<{ id: string }>(
      this.db,
      `INSERT INTO webhooks (url, platform_slug, domain_id, format, secret, types)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [webhook.url, webhook.platform, webhook.domainId, webhook.format, webhook.secret, webhook.types],
    );
    return row.id;
  }

  list(): Promise<WebhookRow[]> {
    return rows<WebhookRow>(
      this.db,
      `SELECT w.id, w.url, w.platform_slug AS platform, d.domain, w.format, w.types, w.secret IS NOT NULL AS has_secret,
              ${isoSql('w.created_at')} AS created_at, ${isoSql('w.last_attempt_at')} AS last_attempt_at,
              w.last_status, w.last_error, w.failures, w.delivered, w.given_up
         FROM webhooks w LEFT JOIN domains d ON d.id = w.domain_id
        ORDER BY w.created_at, w.id`,
    );
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
           FROM webhook_deliveries p WHERE done_at IS NULL
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
              w.secret, d.id AS domain_id, d.domain, d.platform_slug AS platform,
              ${isoSql('t.window_from')} AS window_from, ${isoSql('t.window_to')} AS window_to,
              coalesce(s.new_count - (SELECT count(*) FROM hosts h
                                        JOIN host_intel k ON k.host_id = h.id AND (k.wildcard OR k.out_of_scope)
                                       WHERE h.domain_id = s.domain_id AND h.first_seen_at >= s.started_at)::int,
                       t.new_count) AS new_count
         FROM taken t JOIN webhooks w ON w.id = t.webhook_id LEFT JOIN scans s ON s.id = t.scan_id
         JOIN domains d ON d.id = coalesce(s.domain_id, t.domain_id)`,
      [limit, leaseSeconds, gatherSeconds],
    );
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
        `SELECT h.host, ${isoSql('h.first_seen_at')} AS first_seen_at FROM hosts h
          WHERE h.domain_id = $1 AND h.first_seen_at BETWEEN $2::timestamptz AND $3::timestamptz
            AND (h.sources & ${SOURCE_BITS.ct}) <> 0 AND ${SHOWN}
          ORDER BY h.first_seen_at, h.id LIMIT $4`,
        [delivery.domain_id, delivery.window_from, delivery.window_to, limit],
      );
    }
    return rows(
      this.db,
      `SELECT h.host, ${isoSql('h.first_seen_at')} AS first_seen_at
         FROM scans s JOIN hosts h ON h.domain_id = s.domain_id
        WHERE s.id = $1 AND h.first_seen_at >= s.started_at AND h.first_seen_at <= s.finished_at AND ${SHOWN}
        ORDER BY h.first_seen_at, h.id LIMIT $2`,
      [delivery.scan_id, limit],
    );
  }

  /**
   * Records an attempt: delivered, failed with a retry after `retryAfterSeconds`, or failed for good (null). A
   * worker whose lease ran out (another took the delivery up) records nothing.
   */
  async record(
    delivery: ClaimedDelivery,
    result: { ok: boolean; status: number | null; error: string | null },
    retryAfterSeconds: number | null,
  ): Promise<void> {
    const outcome = result.ok ? 'delivered' : retryAfterSeconds === null ? 'given_up' : null;
    await affected(
      this.db,
      `WITH attempt AS (
         UPDATE webhook_deliveries SET last_status = $2, last_error = $3, lease_until = NULL, outcome = $4,
                done_at = CASE WHEN $4::text IS NULL THEN NULL ELSE now() END,
                next_attempt_at = now() + make_interval(secs => coalesce($5::float8, 0))
          WHERE id = $1 AND lease_until = $8::timestamptz
          RETURNING 1
       )
       UPDATE webhooks SET last_attempt_at = now(), last_status = $2, last_error = $3,
              failures = CASE WHEN $6 THEN 0 ELSE failures + 1 END,
              delivered = delivered + CASE WHEN $4 = 'delivered' THEN 1 ELSE 0 END,
              given_up = given_up + CASE WHEN $4 = 'given_up' THEN 1 ELSE 0 END
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
