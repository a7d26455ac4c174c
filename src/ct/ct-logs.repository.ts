import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Environment } from '../config/environment.js';
import { affected, isoSql, rows } from '../database/sql.js';
import { SOURCE_BITS } from '../hosts/model/host-sources.js';
import { enqueueCtDeliveries } from '../notify/enqueue.js';
import { GenerateSql } from '../database/generate-sql.js';
import { HostStore } from '../hosts/store/host-store.js';

export type CtLogKind = 'rfc6962' | 'static';

/** A log as GET /ct/logs and `cli ct status` show it. */
export interface CtLogRow {
  url: string;
  kind: CtLogKind;
  tree_size: number | null;
  position: number | null;
  lag: number | null;
  entries_total: number;
  hosts_total: number;
  last_polled_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

/** A log this worker holds: where it stands. */
export interface HeldLog {
  id: number;
  url: string;
  position: number | null;
}

/** What one batch of entries yields: its hosts per tracked domain. */
export type HostsByDomain = Map<number, string[]>;

/** The worker lost the log's lease (another took it over): nothing of the batch was saved. */
export class LeaseLost extends Error {}

/**
 * The followed logs, shared by worker processes through the database alone, as scans are: a log is held under a
 * lease that its follower renews with every batch and poll, and that any worker takes over once it runs out.
 */
@Injectable()
export class CtLogsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly env: Environment,
    private readonly hosts: HostStore,
  ) {}

  /** Registers logs to follow; a log known already takes the kind given now (its API may have changed). */
  @GenerateSql({ params: [[{ url: 'https://ct.example/log/', kind: 'rfc6962' }]] })
  async ensure(logs: { url: string; kind: CtLogKind }[]): Promise<void> {
    await affected(
      this.db,
      `INSERT INTO ct_logs (url, kind) SELECT * FROM unnest($1::text[], $2::text[])
       ON CONFLICT (url) DO UPDATE SET kind = excluded.kind WHERE ct_logs.kind IS DISTINCT FROM excluded.kind`,
      [logs.map((l) => l.url), logs.map((l) => l.kind)],
    );
  }

  /** Takes the log when no live worker holds it (or this one does); null when another does (ct_logs_url_key). */
  @GenerateSql({ params: ['https://ct.example/log/', 'host:1', 300] })
  async claim(url: string, workerId: string, leaseSeconds: number): Promise<HeldLog | null> {
    const [held] = await rows<HeldLog>(
      this.db,
      `UPDATE ct_logs SET worker_id = $2, lease_until = now() + make_interval(secs => $3)
        WHERE url = $1 AND (worker_id = $2 OR worker_id IS NULL OR lease_until IS NULL OR lease_until < now())
        RETURNING id, url, position::float8 AS position`,
      [url, workerId, leaseSeconds],
    );
    return held ?? null;
  }

  /**
   * Saves a tree head just read, and renews the lease; a log never read starts at `start`. Returns where the log
   * stands, or throws LeaseLost.
   */
  @GenerateSql({ params: [1, 'host:1', 100, 0, 300] })
  async saveHead(log: number, workerId: string, treeSize: number, start: number, leaseSeconds: number) {
    const [saved] = await rows<{ position: number }>(
      this.db,
      `UPDATE ct_logs SET tree_size = $3, position = coalesce(position, $4), last_polled_at = now(),
              lease_until = now() + make_interval(secs => $5)
        WHERE id = $1 AND worker_id = $2
        RETURNING position::float8 AS position`,
      [log, workerId, treeSize, start, leaseSeconds],
    );
    if (!saved) throw new LeaseLost();
    return saved.position;
  }

  /**
   * Records the hosts that entries [from, to) yielded and moves the log's position to `to`, in one transaction:
   * a batch is saved whole, once, or not at all. Hosts of domains disabled or removed since the roots were read
   * are left out. Returns the domains that gained hosts.
   */
  @GenerateSql({ params: [1, 'host:1', { from: 0, to: 10 }, new Map([[1, ['ct.example.com']]]), 300] })
  recordBatch(
    log: number,
    workerId: string,
    range: { from: number; to: number },
    found: HostsByDomain,
    leaseSeconds: number,
  ): Promise<number[]> {
    return this.hosts.transaction(async (w) => {
      const m = w.manager;
      const hosts = [...found.values()].reduce((n, h) => n + h.length, 0);
      const moved = await affected(
        m,
        `UPDATE ct_logs SET position = $4, entries_total = entries_total + ($4 - $3), hosts_total = hosts_total + $5,
                lease_until = now() + make_interval(secs => $6)
          WHERE id = $1 AND worker_id = $2 AND position = $3`,
        [log, workerId, range.from, range.to, hosts, leaseSeconds],
      );
      if (moved !== 1) throw new LeaseLost();
      // Every domain of the batch in one statement each, however many roots its entries spread over.
      const pairs = [...found].flatMap(([domainId, names]) => names.map((host) => ({ domainId, host })));
      const counts = await w.seenAcross(
        `SELECT d.id AS domain_id, f.host, ${SOURCE_BITS.ct}::smallint AS sources
           FROM unnest($1::int[], $2::text[]) f(domain_id, host) JOIN domains d ON d.id = f.domain_id AND d.enabled`,
        [pairs.map((p) => p.domainId), pairs.map((p) => p.host)],
      );
      if (counts.length > 0) {
        // A root that gained hosts waits for the permutations they seed, when the permute source runs (an event
        // scan, ScanClaimsRepository.startEvents). The older of the two times: a batch that began earlier but
        // commits after another keeps its hosts (first seen at its now()) among the seeds.
        await affected(
          m,
          `UPDATE domains d SET total_subdomains = total_subdomains + c.added,
                  active_subdomains = active_subdomains + c.added + c.back,
                  permute_due_at = CASE WHEN $4 AND c.added > 0 THEN least(d.permute_due_at, now())
                                        ELSE d.permute_due_at END
             FROM unnest($1::int[], $2::int[], $3::int[]) c(id, added, back) WHERE d.id = c.id`,
          [
            counts.map((c) => c.domainId),
            counts.map((c) => c.newCount),
            counts.map((c) => c.reactivated),
            this.env.SCAN_SOURCES.includes('permute'),
          ],
        );
      }
      const gained = counts.filter((c) => c.newCount > 0).map((c) => c.domainId);
      await enqueueCtDeliveries(m, gained, this.env.CT_WEBHOOK_GATHER_SECONDS);
      return gained;
    });
  }

  @GenerateSql({ params: [1, 'host:1', 'get-sth: 503'] })
  async recordError(log: number, workerId: string, message: string): Promise<void> {
    await affected(
      this.db,
      `UPDATE ct_logs SET last_error = $3, last_error_at = now() WHERE id = $1 AND worker_id = $2`,
      [log, workerId, message.slice(0, 2000)],
    );
  }

  /** Gives the log back at shutdown, for any worker to take at once. */
  @GenerateSql({ params: [1, 'host:1'] })
  async release(log: number, workerId: string): Promise<void> {
    await affected(
      this.db,
      `UPDATE ct_logs SET worker_id = NULL, lease_until = NULL WHERE id = $1 AND worker_id = $2`,
      [log, workerId],
    );
  }

  /** Logs held by workers of this host, to free those whose process is gone. */
  @GenerateSql({ params: ['host:%'] })
  heldOnHost(pattern: string): Promise<{ id: number; workerId: string }[]> {
    return rows(this.db, `SELECT id, worker_id AS "workerId" FROM ct_logs WHERE worker_id LIKE $1 ESCAPE '\\'`, [
      pattern,
    ]);
  }

  @GenerateSql({ params: [[1]] })
  async releaseAll(logs: number[]): Promise<void> {
    await affected(this.db, `UPDATE ct_logs SET worker_id = NULL, lease_until = NULL WHERE id = ANY($1::int[])`, [
      logs,
    ]);
  }

  /** The enabled roots, each with its domain id: read whole, and again only when rootsVersion changes. */
  @GenerateSql()
  roots(): Promise<{ domain: string; id: number }[]> {
    return rows(this.db, `SELECT domain, id FROM domains WHERE enabled`);
  }

  /** A cheap fingerprint of the enabled roots: when it changes, they are read again. */
  @GenerateSql()
  async rootsVersion(): Promise<string> {
    const [v] = await rows<{ v: string }>(
      this.db,
      `SELECT count(*) || ':' || coalesce(sum(id), 0) || ':' || coalesce(max(updated_at)::text, '') AS v
         FROM domains WHERE enabled`,
    );
    return v.v;
  }

  @GenerateSql()
  list(): Promise<CtLogRow[]> {
    return rows<CtLogRow>(
      this.db,
      `SELECT url, kind, tree_size::float8 AS tree_size, position::float8 AS position,
              (CASE WHEN position IS NOT NULL THEN greatest(tree_size - position, 0) END)::float8 AS lag, entries_total::float8 AS entries_total,
              hosts_total::float8 AS hosts_total, ${isoSql('last_polled_at')} AS last_polled_at, last_error,
              ${isoSql('last_error_at')} AS last_error_at
         FROM ct_logs ORDER BY url`,
    );
  }
}
