import { withTakeover } from '../intel/takeover/takeover.js';
import { type HostSource, SOURCE_BITS } from '../hosts/model/host-sources.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { enqueueDeliveries } from '../notify/enqueue.js';
import { rollUpFailure, rollUpSuccess } from './source-days.sql.js';
import { type HostAnswer } from '../hosts/store/host-dns.sql.js';
import { type ZoneAnswer, zonesToCheck } from '../hosts/store/wildcard.sql.js';
import type { ScanTrigger } from './entities/scan.entity.js';
import { GenerateSql } from '../database/generate-sql.js';
import { HostStore } from '../hosts/store/host-store.js';
import type { HostCounts } from '../hosts/store/host-writes.js';

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
  /** An event scan's seeds are the root's hosts first seen since then (ISO, microseconds); null for the others. */
  seedsFrom: string | null;
}

export const ACTIVE_SCAN_COLUMNS = `s.id, s.domain_id AS "domainId", d.domain, s.trigger, s.progress,
  ${isoSql('s.started_at')} AS "startedAt", s.attempts, ${isoSql('s.seeds_from')} AS "seedsFrom"`;

/** The running scan the generated queries (src/queries) are written for: test/queries.e2e-spec.ts makes it. */
const SCAN = {
  id: '00000000-0000-4000-8000-000000000001',
  domainId: 1,
  domain: 'example.com',
  trigger: 'api',
  progress: {},
  startedAt: '2026-01-01T00:00:00.000000Z',
  attempts: 1,
  seedsFrom: null,
};

/**
 * Scan persistence: every statement here is set-based (unnest or INSERT … SELECT), so a scan that finds
 * 100k names commits them in a few statements, not a loop.
 */
@Injectable()
export class ScanStoreRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly hosts: HostStore,
  ) {}

  /**
   * Stages names a source found (a name staged before gains the source's bit) and saves where the scan goes on,
   * in one transaction.
   */
  @GenerateSql({ params: [SCAN.id, 'crtsh', ['new.example.com', 'api.example.com'], 0, { crtsh: 'done' }, 120] })
  async stage(scanId: string, source: HostSource, hosts: string[], dropped: number, progress: object, ms: number) {
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
      // The time the source's slices took, in its entry of source_stats (see finishSuccess for the rest).
      await rows(
        m,
        `UPDATE scans SET progress = $2::jsonb, dropped_count = dropped_count + $3,
                source_stats = source_stats || jsonb_build_object($4::text, coalesce(source_stats -> $4, '{}')
                                 || jsonb_build_object('ms', coalesce((source_stats -> $4 ->> 'ms')::bigint, 0) + $5))
          WHERE id = $1`,
        [scanId, JSON.stringify(progress), dropped, source, Math.round(ms)],
      );
    });
  }

  /**
   * Records hosts as seen now (liveness slices), keeps the DNS answers of every host the slice asked about, and
   * saves where the scan goes on; returns how many are new, and how many changes it recorded (events).
   */
  @GenerateSql({
    params: [
      SCAN,
      ['new.example.com'],
      [{ host: 'new.example.com', status: 'resolved', a: ['192.0.2.2'], aaaa: [], cname: [] }],
      [{ zone: 'example.com', answers: [], revealedBy: null }],
      { liveness: 1 },
    ],
  })
  recordSeen(
    scan: ActiveScan,
    hosts: string[],
    answers: HostAnswer[],
    zones: ZoneAnswer[],
    progress: object,
  ): Promise<{ added: number; changes: number }> {
    return this.hosts.transaction(async (w) => {
      const m = w.manager;
      // A name the scan's sources staged carries their bits; a known host that still resolves gains none.
      const counts = await w.seen(
        scan.domainId,
        `SELECT c.host, coalesce(n.sources, 0) AS sources FROM unnest($2::text[]) c(host)
           LEFT JOIN scan_names n ON n.scan_id = $3 AND n.host = c.host`,
        [hosts, scan.id],
      );
      await this.addCounts(m, scan.id, counts, progress);
      // Zones first: a host's wildcard flag compares its answer with its zone's.
      const detected = await w.zones(scan.domainId, zones);
      const changes = await w.answers(scan.domainId, withTakeover(answers));
      return { added: counts.newCount, changes: detected + changes + counts.reactivated };
    });
  }

  /** Of these zones of the scan's domain, those not yet checked for a wildcard during this scan. */
  @GenerateSql({ params: [SCAN, ['dev.example.com']] })
  zonesToCheck(scan: ActiveScan, zones: string[]): Promise<string[]> {
    return zonesToCheck(this.db, scan.domainId, zones, scan.startedAt);
  }

  /**
   * Staged names, then known hosts, after a name in host order: the liveness phase walks these in slices. An event
   * scan checks only the names it staged: it looked at a few names, not the root.
   */
  @GenerateSql({ name: 'first', params: [SCAN, null, 500] }, { name: 'next', params: [SCAN, 'api.example.com', 500] })
  candidates(scan: ActiveScan, after: string | null, limit: number): Promise<{ host: string; known: boolean }[]> {
    return rows(
      this.db,
      `SELECT host, bool_or(known) AS known FROM (
         SELECT host, false AS known FROM scan_names WHERE scan_id = $1 AND host > $3
         UNION ALL
         SELECT host, true AS known FROM hosts WHERE domain_id = $2 AND host > $3 AND $5
       ) c GROUP BY host ORDER BY host LIMIT $4`,
      [scan.id, scan.domainId, after ?? '', limit, scan.trigger !== 'event'],
    );
  }

  /**
   * Completes a scan in one transaction: commits the staged names when liveness is off, marks every
   * active host the scan did not see inactive (not after an event scan, which looked at a few names only),
   * refreshes the domain's counters and last-scan fields, and drops the staging rows. Returns the scan's final counts.
   */
  @GenerateSql({ params: [SCAN, true] })
  finishSuccess(scan: ActiveScan, commitStaged: boolean) {
    return this.hosts.transaction(async (w) => {
      const m = w.manager;
      // Held, and still running: a second worker that took the scan up after a lost lease finds it ended, and
      // counts, tells and rolls up nothing twice.
      if (!(await stillRunning(m, scan.id))) return null;
      if (commitStaged) {
        const counts = await w.seen(scan.domainId, `SELECT host, sources FROM scan_names WHERE scan_id = $2`, [
          scan.id,
        ]);
        await this.addCounts(m, scan.id, counts, {});
      }
      const [{ inactive }] = await rows<{ inactive: number }>(
        m,
        `WITH gone AS (
           UPDATE hosts SET is_active = false
            WHERE domain_id = $1 AND is_active AND last_seen_at < $2::timestamptz AND $3 RETURNING id
         ), events AS (
           INSERT INTO host_events (type, host_id, domain_id) SELECT 'host_gone', id, $1 FROM gone
         ) SELECT count(*)::int AS inactive FROM gone`,
        [scan.domainId, scan.startedAt, scan.trigger !== 'event'],
      );
      await this.recordSourceYields(m, scan);
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
      await rollUpSuccess(m, scan.id);
      return final;
    });
  }

  /**
   * What each source's names came to, in its entry of source_stats: `names` it reported, `seen` of them this scan
   * (resolved, with RESOLVE=on: a source whose names mostly do not resolve floods), `new` of them. One pass over
   * the scan's names (scan_names_pkey), each looked up by (domain_id, host).
   */
  private async recordSourceYields(m: EntityManager, scan: ActiveScan): Promise<void> {
    await rows(
      m,
      `WITH per AS (
         SELECT src.name, count(*) AS names, count(*) FILTER (WHERE h.last_seen_at >= $2::timestamptz) AS seen,
                count(*) FILTER (WHERE h.first_seen_at >= $2::timestamptz) AS new
           FROM scan_names n CROSS JOIN LATERAL unnest(host_sources(n.sources)) AS src(name)
           LEFT JOIN hosts h ON h.domain_id = $3 AND h.host = n.host
          WHERE n.scan_id = $1
          GROUP BY src.name
       )
       UPDATE scans s
          SET source_stats = s.source_stats || (SELECT jsonb_object_agg(p.name, coalesce(s.source_stats -> p.name, '{}')
                                                  || jsonb_build_object('names', p.names, 'seen', p.seen, 'new', p.new))
                                                  FROM per p)
        WHERE s.id = $1 AND EXISTS (SELECT 1 FROM per)`,
      [scan.id, scan.startedAt, scan.domainId],
    );
  }

  /** Ends a scan in error. Nothing is marked inactive: an incomplete scan proves no host gone. */
  @GenerateSql({ params: [SCAN, 'crtsh: timed out'] })
  async finishError(scan: ActiveScan, message: string): Promise<void> {
    await this.db.transaction(async (m) => {
      if (!(await stillRunning(m, scan.id))) return;
      await rows(
        m,
        `UPDATE scans SET status = 'error', error = $2, finished_at = now(), lease_until = NULL, worker_id = NULL,
                found_count = (SELECT count(*) FROM scan_names WHERE scan_id = $1)
          WHERE id = $1`,
        [scan.id, message.slice(0, 2000)],
      );
      await this.closeScan(m, scan, 'error', 0);
      // An event scan that failed gives its seeds back: the next one asks around them.
      if (scan.seedsFrom !== null) {
        await rows(m, `UPDATE domains SET permute_due_at = least(permute_due_at, $2::timestamptz) WHERE id = $1`, [
          scan.domainId,
          scan.seedsFrom,
        ]);
      }
      await rollUpFailure(m, message.slice(0, 2000));
    });
  }

  /**
   * The domain's live counters and last-scan fields after a scan, and the scan's staging rows dropped. The last scan
   * of a root stays its last scan of every name: an event scan's end leaves those fields as they were.
   */
  private async closeScan(
    m: EntityManager,
    scan: ActiveScan,
    status: 'success' | 'error',
    newCount: number,
  ): Promise<void> {
    await rows(
      m,
      `UPDATE domains SET last_scanned_at = CASE WHEN $4 THEN now() ELSE last_scanned_at END,
              last_scan_status = CASE WHEN $4 THEN $2 ELSE last_scan_status END,
              new_subdomains_last_scan = CASE WHEN $4 THEN $3 ELSE new_subdomains_last_scan END,
              total_subdomains = (SELECT count(*) FROM hosts WHERE domain_id = $1),
              active_subdomains = (SELECT count(*) FROM hosts WHERE domain_id = $1 AND is_active),
              updated_at = now()
        WHERE id = $1`,
      [scan.domainId, status, newCount, scan.trigger !== 'event'],
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

/** Locks the scan's row for its end, and says whether it is still running (no other worker ended it). */
async function stillRunning(m: EntityManager, scanId: string): Promise<boolean> {
  const held = await rows(m, `SELECT 1 FROM scans WHERE id = $1 AND status = 'running' FOR UPDATE`, [scanId]);
  return held.length === 1;
}
