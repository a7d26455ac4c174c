import { type HostSource, SOURCE_BITS } from '../hosts/host-sources.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { enqueueDeliveries } from '../webhooks/webhooks.repository.js';
import { type HostAnswer, recordAnswers } from '../intel/host-dns.sql.js';
import { recordZones, type ZoneAnswer, zonesToCheck } from '../intel/wildcard.sql.js';
import type { ScanTrigger } from './scan.entity.js';

/** A running scan a worker holds. */
export interface ActiveScan {
  id: string;
  domainId: number;
  domain: string;
  trigger: ScanTrigger;
  progress: Record<string, unknown>;
  /** ISO timestamp with microseconds: hosts not seen since then are inactive when the scan completes. */
  startedAt: string;
  attempts: number;
}

export const ACTIVE_SCAN_COLUMNS = `s.id, s.domain_id AS "domainId", d.domain, s.trigger, s.progress,
  ${isoSql('s.started_at')} AS "startedAt", s.attempts`;

export interface HostCounts {
  newCount: number;
  reactivated: number;
}

/**
 * Scan persistence: every statement here is set-based (unnest or INSERT … SELECT), so a scan that finds
 * 100k names commits them in a few statements, not a loop.
 */
/**
 * Takes the transaction's id at once, before any host is written with first_seen_at = now(): live streams hold
 * their events behind open transactions that hold an id (see HORIZON_SQL), so a slow commit is never skipped.
 */
export async function writing(m: EntityManager): Promise<void> {
  await rows(m, `SELECT pg_current_xact_id()`);
}

/**
 * Marks hosts seen now: existing ones get last_seen_at, become active again and gain the bits of the sources
 * that found them now, the others are added with first_seen_at = now (hosts_domain_host_key) and counted in the
 * rollups; a new one that an exclusion rule of the domain names is out of scope. `source` is a query yielding `host` and `sources` (SOURCE_BITS), given $2 ($1 is the domain). Scans and the CT follower both record hosts through it, inside
 * their own transaction (after writing()).
 */
export async function upsertSeenHosts(
  m: EntityManager,
  domainId: number,
  source: string,
  params: unknown[],
): Promise<HostCounts> {
  const [counts] = await rows<HostCounts>(
    m,
    `WITH input AS (SELECT host, bit_or(sources)::smallint AS sources FROM (${source}) s GROUP BY host),
     existing AS (
       SELECT h.id, h.is_active, i.sources FROM hosts h JOIN input i ON i.host = h.host WHERE h.domain_id = $1
     ), touched AS (
       UPDATE hosts h SET last_seen_at = now(), is_active = true, sources = h.sources | e.sources
         FROM existing e WHERE h.id = e.id
       RETURNING h.id, e.is_active AS was_active
     ), back AS (
       INSERT INTO host_events (type, host_id, domain_id) SELECT 'host_back', id, $1 FROM touched WHERE NOT was_active
     ), added AS (
       INSERT INTO hosts (domain_id, host, first_seen_at, last_seen_at, sources)
       SELECT $1, i.host, now(), now(), i.sources FROM input i
        WHERE NOT EXISTS (SELECT 1 FROM hosts h WHERE h.domain_id = $1 AND h.host = i.host)
       ON CONFLICT (domain_id, host) DO NOTHING
       RETURNING id, host
     ), excluded AS (
       -- A new host an exclusion rule of the domain names is recorded out of scope (see migration ScopeRules).
       INSERT INTO host_intel (host_id, out_of_scope)
       SELECT a.id, true FROM added a
        WHERE EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = $1 AND a.host ~ r.regex)
     ), counted AS (
       INSERT INTO new_host_counts (hour, platform_slug, n)
       SELECT date_trunc('hour', now(), 'UTC'), (SELECT platform_slug FROM domains WHERE id = $1), count(*)
         FROM added HAVING count(*) > 0
       ON CONFLICT (hour, platform_slug) DO UPDATE SET n = new_host_counts.n + EXCLUDED.n
     ), counted_minute AS (
       INSERT INTO new_host_minutes (minute, platform_slug, n)
       SELECT date_trunc('minute', now(), 'UTC'), (SELECT platform_slug FROM domains WHERE id = $1), count(*)
         FROM added HAVING count(*) > 0
       ON CONFLICT (minute, platform_slug) DO UPDATE SET n = new_host_minutes.n + EXCLUDED.n
     ), counted_domain AS (
       INSERT INTO domain_new_host_counts (domain_id, hour, n)
       SELECT $1, date_trunc('hour', now(), 'UTC'), count(*) FROM added HAVING count(*) > 0
       ON CONFLICT (domain_id, hour) DO UPDATE SET n = domain_new_host_counts.n + EXCLUDED.n
     ), counted_day AS (
       INSERT INTO domain_new_host_days (domain_id, day, n)
       SELECT $1, date_trunc('day', now(), 'UTC'), count(*) FROM added HAVING count(*) > 0
       ON CONFLICT (domain_id, day) DO UPDATE SET n = domain_new_host_days.n + EXCLUDED.n
     )
     SELECT (SELECT count(*) FROM added)::int AS "newCount",
            (SELECT count(*) FROM touched WHERE NOT was_active)::int AS reactivated`,
    [domainId, ...params],
  );
  return counts;
}

@Injectable()
export class ScanStoreRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Stages names a source found (a name staged before gains the source's bit) and saves where the scan goes on,
   * in one transaction.
   */
  async stage(scanId: string, source: HostSource, hosts: string[], dropped: number, progress: object) {
    await this.db.transaction(async (m) => {
      if (hosts.length > 0) {
        await rows(
          m,
          `INSERT INTO scan_names (scan_id, host, sources) SELECT DISTINCT $1::uuid, unnest($2::text[]), $3::smallint
           ON CONFLICT (scan_id, host) DO UPDATE SET sources = scan_names.sources | excluded.sources
            WHERE (scan_names.sources & excluded.sources) = 0`,
          [scanId, hosts, SOURCE_BITS[source]],
        );
      }
      await rows(m, `UPDATE scans SET progress = $2::jsonb, dropped_count = dropped_count + $3 WHERE id = $1`, [
        scanId,
        JSON.stringify(progress),
        dropped,
      ]);
    });
  }

  /**
   * Records hosts as seen now (liveness slices), keeps the DNS answers of every host the slice asked about, and
   * saves where the scan goes on; returns how many are new, and how many changes it recorded (events).
   */
  recordSeen(
    scan: ActiveScan,
    hosts: string[],
    answers: HostAnswer[],
    zones: ZoneAnswer[],
    progress: object,
  ): Promise<{ added: number; changes: number }> {
    return this.db.transaction(async (m) => {
      await writing(m);
      // A name the scan's sources staged carries their bits; a known host that still resolves gains none.
      const counts = await upsertSeenHosts(
        m,
        scan.domainId,
        `SELECT c.host, coalesce(n.sources, 0) AS sources FROM unnest($2::text[]) c(host)
           LEFT JOIN scan_names n ON n.scan_id = $3 AND n.host = c.host`,
        [hosts, scan.id],
      );
      await this.addCounts(m, scan.id, counts, progress);
      // Zones first: a host's wildcard flag compares its answer with its zone's.
      const detected = await recordZones(m, scan.domainId, zones);
      const changes = await recordAnswers(m, scan.domainId, answers);
      return { added: counts.newCount, changes: detected + changes + counts.reactivated };
    });
  }

  /** Of these zones of the scan's domain, those not yet checked for a wildcard during this scan. */
  zonesToCheck(scan: ActiveScan, zones: string[]): Promise<string[]> {
    return zonesToCheck(this.db, scan.domainId, zones, scan.startedAt);
  }

  /** Staged names, then known hosts, after a name in host order: the liveness phase walks these in slices. */
  candidates(scan: ActiveScan, after: string | null, limit: number): Promise<{ host: string; known: boolean }[]> {
    return rows(
      this.db,
      `SELECT host, bool_or(known) AS known FROM (
         SELECT host, false AS known FROM scan_names WHERE scan_id = $1 AND host > $3
         UNION ALL
         SELECT host, true AS known FROM hosts WHERE domain_id = $2 AND host > $3
       ) c GROUP BY host ORDER BY host LIMIT $4`,
      [scan.id, scan.domainId, after ?? '', limit],
    );
  }

  /**
   * Completes a scan in one transaction: commits the staged names when liveness is off, marks every
   * active host the scan did not see inactive, refreshes the domain's counters and last-scan fields, and
   * drops the staging rows. Returns the scan's final counts.
   */
  finishSuccess(scan: ActiveScan, commitStaged: boolean) {
    return this.db.transaction(async (m) => {
      await writing(m);
      if (commitStaged) {
        const counts = await upsertSeenHosts(
          m,
          scan.domainId,
          `SELECT host, sources FROM scan_names WHERE scan_id = $2`,
          [scan.id],
        );
        await this.addCounts(m, scan.id, counts, {});
      }
      const [{ inactive }] = await rows<{ inactive: number }>(
        m,
        `WITH gone AS (
           UPDATE hosts SET is_active = false
            WHERE domain_id = $1 AND is_active AND last_seen_at < $2::timestamptz RETURNING id
         ), events AS (
           INSERT INTO host_events (type, host_id, domain_id) SELECT 'host_gone', id, $1 FROM gone
         ) SELECT count(*)::int AS inactive FROM gone`,
        [scan.domainId, scan.startedAt],
      );
      const [final] = await rows<{
        found: number;
        new: number;
        reactivated: number;
        inactive: number;
        dropped: number;
      }>(
        m,
        `UPDATE scans SET status = 'success', finished_at = now(), inactive_count = $2, progress = '{}'::jsonb,
                lease_until = NULL, worker_id = NULL,
                found_count = (SELECT count(*) FROM scan_names WHERE scan_id = $1)
          WHERE id = $1
          RETURNING found_count AS found, new_count AS new, reactivated_count AS reactivated, inactive_count AS inactive,
                    dropped_count AS dropped`,
        [scan.id, inactive],
      );
      await this.closeScan(m, scan, 'success', final.new);
      if (final.new > 0) await enqueueDeliveries(m, scan.id, scan.domainId);
      return final;
    });
  }

  /** Ends a scan in error. Nothing is marked inactive: an incomplete scan proves no host gone. */
  async finishError(scan: ActiveScan, message: string): Promise<void> {
    await this.db.transaction(async (m) => {
      await rows(
        m,
        `UPDATE scans SET status = 'error', error = $2, finished_at = now(), lease_until = NULL, worker_id = NULL,
                found_count = (SELECT count(*) FROM scan_names WHERE scan_id = $1)
          WHERE id = $1`,
        [scan.id, message.slice(0, 2000)],
      );
      await this.closeScan(m, scan, 'error', 0);
    });
  }

  /** The domain's last-scan fields and live counters after a scan, and the scan's staging rows dropped. */
  private async closeScan(
    m: EntityManager,
    scan: ActiveScan,
    status: 'success' | 'error',
    newCount: number,
  ): Promise<void> {
    await rows(
      m,
      `UPDATE domains SET last_scanned_at = now(), last_scan_status = $2, new_subdomains_last_scan = $3,
              total_subdomains = (SELECT count(*) FROM hosts WHERE domain_id = $1),
              active_subdomains = (SELECT count(*) FROM hosts WHERE domain_id = $1 AND is_active),
              updated_at = now()
        WHERE id = $1`,
      [scan.domainId, status, newCount],
    );
    await rows(m, `DELETE FROM scan_names WHERE scan_id = $1`, [scan.id]);
  }

  private async addCounts(m: EntityManager, scanId: string, counts: HostCounts, progress: object): Promise<void> {
    await rows(
      m,
      `UPDATE scans SET new_count = new_count + $2, reactivated_count = reactivated_count + $3, progress = $4::jsonb
        WHERE id = $1`,
      [scanId, counts.newCount, counts.reactivated, JSON.stringify(progress)],
    );
  }
}
