import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { affected, rows } from '../database/sql.js';
import { ACTIVE_SCAN_COLUMNS, type ActiveScan } from './scan-store.repository.js';
import { GenerateSql } from '../database/generate-sql.js';

/** The scans a statement's `started` CTE inserted, as a worker holds them. */
const STARTED = `SELECT ${ACTIVE_SCAN_COLUMNS} FROM started s JOIN domains d ON d.id = s.domain_id`;

/** After this many take-ups of a scan whose worker died, the scan ends in error instead. */
export const MAX_ATTEMPTS = 3;

/**
 * How workers share the scans through the database alone: claims take rows with FOR UPDATE SKIP LOCKED, so
 * any number of processes never take the same domain or scan twice, and a lease with a heartbeat tells a
 * live worker's scan from one whose worker died.
 */
@Injectable()
export class ScanClaimsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Running scans waiting for their next slice, or whose worker died (lease expired) (scans_claimable_idx). */
  @GenerateSql({ params: ['host:1', 4, 300] })
  claimRunning(workerId: string, limit: number, leaseSeconds: number): Promise<ActiveScan[]> {
    if (limit <= 0) return Promise.resolve([]);
    return rows<ActiveScan>(
      this.db,
      `WITH c AS (
         SELECT id FROM scans
          WHERE status = 'running' AND (lease_until IS NULL OR lease_until < now()) AND attempts < $4
          ORDER BY started_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ), taken AS (
         UPDATE scans s SET lease_until = now() + make_interval(secs => $3), worker_id = $1,
                attempts = s.attempts + CASE WHEN s.lease_until IS NULL THEN 0 ELSE 1 END
           FROM c WHERE s.id = c.id
         RETURNING s.*
       )
       SELECT ${ACTIVE_SCAN_COLUMNS} FROM taken s JOIN domains d ON d.id = s.domain_id`,
      [workerId, limit, leaseSeconds, MAX_ATTEMPTS],
    );
  }

  /**
   * Starts scans of queued domains first, then of enabled domains that are due (domains_queued_idx,
   * domains_due_idx), each claimed with its next due time moved on, in one statement. The unique index on
   * running scans per domain stops a second scan of a domain whatever else happens. The queue mark and the due
   * time move only where a scan started: a scan another process commits after this statement's snapshot and before
   * its row lock (an event scan, `scan` in the CLI) makes the insert do nothing, and the rescan asked for then
   * follows that scan instead of being lost with it. (Outside that window the domain row's lock keeps the two apart:
   * the other's insert holds it FOR KEY SHARE, which SKIP LOCKED passes by, or waits for this statement's.)
   */
  @GenerateSql({ params: ['host:1', 4, 300, 24] })
  startDue(workerId: string, limit: number, leaseSeconds: number, intervalHours: number): Promise<ActiveScan[]> {
    if (limit <= 0) return Promise.resolve([]);
    return rows<ActiveScan>(
      this.db,
      `WITH picked AS (
         SELECT d.id, d.queued_at IS NOT NULL AS queued FROM domains d
          WHERE (d.queued_at IS NOT NULL OR (d.enabled AND d.next_scan_at <= now()))
            AND NOT EXISTS (SELECT 1 FROM scans s WHERE s.domain_id = d.id AND s.status = 'running')
          ORDER BY d.queued_at NULLS LAST, d.next_scan_at
          LIMIT $2 FOR UPDATE OF d SKIP LOCKED
       ), started AS (
         INSERT INTO scans (domain_id, trigger, status, lease_until, worker_id)
         SELECT p.id, CASE WHEN p.queued THEN 'api' ELSE 'cron' END, 'running', now() + make_interval(secs => $3), $1
           FROM picked p
         ON CONFLICT (domain_id) WHERE status = 'running' DO NOTHING
         RETURNING *
       ), moved AS (
         UPDATE domains d SET queued_at = NULL, next_scan_at = now() + make_interval(hours => $4)
           FROM started s WHERE d.id = s.domain_id
       )
       ${STARTED}`,
      [workerId, limit, leaseSeconds, intervalHours],
    );
  }

  /**
   * Starts event scans: enabled roots whose hosts found by the CT follower have gathered for `gatherSeconds`
   * (domains_permute_due_idx), each with its seeds' time and its mark cleared, in one statement. A root with a scan
   * running waits, and so does one whose scan another worker starts meanwhile: the mark is cleared only where the
   * event scan started.
   */
  @GenerateSql({ params: ['host:1', 2, 300, 60] })
  startEvents(workerId: string, limit: number, leaseSeconds: number, gatherSeconds: number): Promise<ActiveScan[]> {
    if (limit <= 0) return Promise.resolve([]);
    return rows<ActiveScan>(
      this.db,
      `WITH picked AS (
         SELECT d.id, d.permute_due_at FROM domains d
          WHERE d.permute_due_at <= now() - make_interval(secs => $4) AND d.enabled
            AND NOT EXISTS (SELECT 1 FROM scans s WHERE s.domain_id = d.id AND s.status = 'running')
          ORDER BY d.permute_due_at
          LIMIT $2 FOR UPDATE OF d SKIP LOCKED
       ), started AS (
         INSERT INTO scans (domain_id, trigger, status, lease_until, worker_id, seeds_from)
         SELECT p.id, 'event', 'running', now() + make_interval(secs => $3), $1, p.permute_due_at FROM picked p
         ON CONFLICT (domain_id) WHERE status = 'running' DO NOTHING
         RETURNING *
       ), cleared AS (
         UPDATE domains d SET permute_due_at = NULL FROM started s WHERE d.id = s.domain_id
       )
       ${STARTED}`,
      [workerId, limit, leaseSeconds, gatherSeconds],
    );
  }

  /** Starts a scan an operator asked for (trigger cli); null when the domain already has one running. */
  @GenerateSql({ params: [2, 'host:1', 300] })
  async startNow(domainId: number, workerId: string, leaseSeconds: number): Promise<ActiveScan | null> {
    const [scan] = await rows<ActiveScan>(
      this.db,
      `WITH started AS (
         INSERT INTO scans (domain_id, trigger, status, lease_until, worker_id)
         VALUES ($1, 'cli', 'running', now() + make_interval(secs => $3), $2)
         ON CONFLICT (domain_id) WHERE status = 'running' DO NOTHING
         RETURNING *
       )
       ${STARTED}`,
      [domainId, workerId, leaseSeconds],
    );
    return scan ?? null;
  }

  /** Extends this worker's leases while its slices run. */
  @GenerateSql({ params: ['host:1', ['00000000-0000-0000-0000-000000000000'], 300] })
  heartbeat(workerId: string, scanIds: string[], leaseSeconds: number): Promise<number> {
    return affected(
      this.db,
      `UPDATE scans SET lease_until = now() + make_interval(secs => $3)
        WHERE id = ANY($2::uuid[]) AND worker_id = $1 AND status = 'running'`,
      [workerId, scanIds, leaseSeconds],
    );
  }

  /** Gives a scan back between slices: any worker takes it up at its next tick. */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000', 'host:1'] })
  async park(scanId: string, workerId: string): Promise<void> {
    await affected(this.db, `UPDATE scans SET lease_until = NULL, worker_id = NULL WHERE id = $1 AND worker_id = $2`, [
      scanId,
      workerId,
    ]);
  }

  /** Gives back the scans of `scanIds` this worker still holds, for any worker to take up at once. */
  @GenerateSql({ params: [['00000000-0000-0000-0000-000000000000'], 'host:1'] })
  async parkAll(scanIds: string[], workerId: string): Promise<void> {
    await affected(
      this.db,
      `UPDATE scans SET lease_until = NULL, worker_id = NULL WHERE id = ANY($1::uuid[]) AND worker_id = $2`,
      [scanIds, workerId],
    );
  }

  /** Running scans held by workers on this host, with their worker ids, to find those whose process is gone. */
  @GenerateSql({ params: ['host'] })
  heldOnHost(hostname: string): Promise<{ id: string; workerId: string }[]> {
    return rows(
      this.db,
      `SELECT id, worker_id AS "workerId" FROM scans WHERE status = 'running' AND worker_id LIKE $1 ESCAPE '\\'`,
      [`${hostname.replace(/[\\%_]/g, (c) => `\\${c}`)}:%`],
    );
  }

  /** Frees scans whose worker died, so the next tick takes them up at once instead of after the lease. */
  @GenerateSql({ params: [['00000000-0000-0000-0000-000000000000']] })
  release(scanIds: string[]): Promise<number> {
    return affected(
      this.db,
      `UPDATE scans SET lease_until = now() - interval '1 second' WHERE id = ANY($1::uuid[]) AND status = 'running'`,
      [scanIds],
    );
  }

  /**
   * Scans whose workers kept dying end in error rather than running forever. An event scan leaves its root's
   * last-scan fields as they were and gives its seeds back (the root's mark, the older of the two).
   */
  @GenerateSql()
  failExhausted(): Promise<number> {
    return affected(
      this.db,
      `WITH failed AS (
         UPDATE scans SET status = 'error', finished_at = now(), lease_until = NULL, worker_id = NULL,
                error = 'interrupted: the worker running this scan stopped ' || attempts || ' times'
          WHERE status = 'running' AND attempts >= $1 AND lease_until < now()
          RETURNING id, domain_id, trigger, seeds_from
       ), cleared AS (
         DELETE FROM scan_names WHERE scan_id IN (SELECT id FROM failed)
       )
       UPDATE domains d
          SET last_scan_status = CASE WHEN f.trigger = 'event' THEN d.last_scan_status ELSE 'error' END,
              last_scanned_at = CASE WHEN f.trigger = 'event' THEN d.last_scanned_at ELSE now() END,
              permute_due_at = CASE WHEN f.trigger = 'event' THEN least(d.permute_due_at, f.seeds_from)
                                    ELSE d.permute_due_at END
         FROM failed f WHERE d.id = f.domain_id`,
      [MAX_ATTEMPTS],
    );
  }
}
