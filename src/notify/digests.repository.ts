import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { affected, isoSql, rows } from '../database/sql.js';
import { type EventRow, EVENT_COLUMNS } from '../events/events.repository.js';
import type { ClaimedDelivery } from './delivery.model.js';
import { hearsOf, ofWebhookScope, toldTo } from './webhook-sql.js';
import { GenerateSql } from '../database/generate-sql.js';

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

/** Digests: the windows they cover, and what happened in each. */
@Injectable()
export class DigestsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Opens a delivery of kind digest for each digest webhook whose window has ended (`lagSeconds` ago, so that the
   * writes of transactions still open as it ended are in), when anything happened in it: new hosts of its filters
   * (host_new) or changes of its types. A window where nothing happened is passed over with no delivery. Each
   * webhook is locked while its window moves on, so two workers never open the same window. Returns how many
   * were opened.
   */
  @GenerateSql({ params: [30] })
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
  @GenerateSql({
    params: [
      {
        id: '00000000-0000-0000-0000-000000000000',
        kind: 'digest',
        lease_until: '2026-01-01T00:00:00.000000Z',
        webhook_id: '00000000-0000-0000-0000-000000000000',
        scan_id: null,
        domain_id: 1,
        window_from: '2026-01-01T00:00:00.000000Z',
        window_to: '2026-01-01T00:00:00.000000Z',
        attempts: 1,
        url: 'https://hooks.example.net/in',
        format: 'slack',
        secret: null,
        chat_id: null,
      },
      50,
    ],
  })
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
}
