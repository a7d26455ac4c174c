import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { affected, isoSql, rows } from '../database/sql.js';
import { type EventRow, EVENT_COLUMNS } from '../events/events.repository.js';
import { SOURCE_BITS } from '../hosts/model/host-sources.js';
import type { ClaimedDelivery, DeliveryRow } from './delivery.model.js';
import { toldTo } from './webhook-sql.js';
import { knowledgeColumn, withFields } from '../hosts/model/host-fields.js';
import type { DeliveredHost } from './webhook-payload.js';
import { GenerateSql } from '../database/generate-sql.js';

/** A delivery as the API and the account page show it, from webhook_deliveries x and its scan s. */
const DELIVERY_COLUMNS = `x.id, x.kind, ${isoSql('x.created_at')} AS created_at,
       coalesce(s.new_count, x.new_count, 0) AS event_count,
       coalesce(x.outcome, 'pending') AS status, x.attempts, ${isoSql('x.last_attempt_at')} AS last_attempt_at,
       x.last_status AS http_status, x.duration_ms, x.last_error AS error,
       CASE WHEN x.done_at IS NULL THEN ${isoSql('x.next_attempt_at')} END AS next_attempt_at`;

/** A run of failed attempts this long pauses a webhook. */
export const PAUSE_AFTER_HOURS = 24;

/** The delivery queue: what workers claim and record, and what owners list and retry. */
/** The delivery the generated queries (src/queries) are written for. */
const DELIVERY = {
  id: '00000000-0000-0000-0000-000000000000',
  kind: 'new_hosts',
  lease_until: '2026-01-01T00:00:00.000000Z',
  webhook_id: '00000000-0000-0000-0000-000000000000',
  scan_id: null,
  domain_id: 1,
  window_from: '2026-01-01T00:00:00.000000Z',
  window_to: '2026-01-01T00:00:00.000000Z',
  attempts: 1,
  url: 'https://hooks.example.net/in',
  format: 'json',
  secret: null,
  chat_id: null,
  fields: [],
};

@Injectable()
export class DeliveriesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A webhook's latest deliveries, newest first (webhook_deliveries_recent_idx). */
  @GenerateSql(
    { name: 'a webhook’s', params: ['00000000-0000-0000-0000-000000000000', 20] },
    { name: 'one', params: ['00000000-0000-0000-0000-000000000000', 1, '00000000-0000-0000-0000-000000000000'] },
  )
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
  @GenerateSql({ params: [['00000000-0000-0000-0000-000000000000'], 5] })
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
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'] })
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
  @GenerateSql({ params: [10, 60, 30] })
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
              w.format, w.fields,
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

  /** The changes a host_events delivery tells of, oldest first, as the change feed shows them. */
  @GenerateSql({ params: [DELIVERY, 100] })
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
   * in the delivery's window; with the webhook's fields, as known now.
   */
  @GenerateSql({ params: [DELIVERY, 100] }, { name: 'with fields', params: [{ ...DELIVERY, fields: ['ips'] }, 100] })
  newHostsOf(delivery: ClaimedDelivery, limit: number): Promise<DeliveredHost[]> {
    const row = { fields: delivery.fields, inScope: false };
    const columns = `h.host, ${isoSql('h.first_seen_at')} AS first_seen_at${knowledgeColumn(row)}`;
    if (delivery.scan_id === null) {
      return rows(
        this.db,
        withFields(
          `SELECT ${columns} FROM hosts h JOIN webhooks w ON w.id = $5
            WHERE h.domain_id = $1 AND h.first_seen_at BETWEEN $2::timestamptz AND $3::timestamptz
              AND (h.sources & ${SOURCE_BITS.ct}) <> 0 AND ${toldTo('h', 'w')}
            ORDER BY h.first_seen_at, h.id LIMIT $4`,
          ['host', 'first_seen_at'],
          row,
        ),
        [delivery.domain_id, delivery.window_from, delivery.window_to, limit, delivery.webhook_id],
      );
    }
    return rows(
      this.db,
      withFields(
        `SELECT ${columns}
           FROM scans s JOIN hosts h ON h.domain_id = s.domain_id JOIN webhooks w ON w.id = $3
          WHERE s.id = $1 AND h.first_seen_at >= s.started_at AND h.first_seen_at <= s.finished_at
            AND ${toldTo('h', 'w')}
          ORDER BY h.first_seen_at, h.id LIMIT $2`,
        ['host', 'first_seen_at'],
        row,
      ),
      [delivery.scan_id, limit, delivery.webhook_id],
    );
  }

  /**
   * Records an attempt: delivered, failed with a retry after `retryAfterSeconds`, or failed for good (null). A
   * worker whose lease ran out (another took the delivery up) records nothing.
   */
  @GenerateSql({ params: [DELIVERY, { ok: false, status: 503, error: 'HTTP 503', durationMs: 12 }, 60] })
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
  @GenerateSql({ params: [DELIVERY] })
  async release(delivery: ClaimedDelivery): Promise<void> {
    await affected(
      this.db,
      `UPDATE webhook_deliveries SET lease_until = NULL, attempts = attempts - 1
        WHERE id = $1 AND lease_until = $2::timestamptz`,
      [delivery.id, delivery.lease_until],
    );
  }
}
