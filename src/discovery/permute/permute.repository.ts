import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { affected, rows } from '../../database/sql.js';
import { GenerateSql } from '../../database/generate-sql.js';
import type { Pattern } from './naming.js';
import { SOURCE_BITS } from '../../hosts/model/host-sources.js';

/** Tries and hits of each pattern on a root. */
export type Yields = Partial<Record<Pattern, { tried: number; hits: number }>>;

/** What the permute source counts of a scan: candidates it took, DNS queries it sent, hosts it found. */
export interface PermuteStats {
  candidates: number;
  queries: number;
  hits: number;
}

const SCAN_ID = '00000000-0000-4000-8000-000000000001';
/** Hosts an event scan seeds from at most: a burst of thousands is a root's scan's work, not an event's. */
const SEEDS = 500;

/** The permute source's reads and writes: what a root holds, what was tried, what each pattern yields. */
@Injectable()
export class PermuteRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The root's names: its hosts (every source, the CT follower's too; hosts_domain_host_key, index only) and the
   * names the scan's earlier sources staged.
   */
  @GenerateSql({ params: [1, SCAN_ID] })
  async knownNames(domainId: number, scanId: string): Promise<string[]> {
    const found = await rows<{ host: string }>(
      this.db,
      `SELECT host FROM hosts WHERE domain_id = $1
       UNION SELECT host FROM scan_names WHERE scan_id = $2`,
      [domainId, scanId],
    );
    return found.map((r) => r.host);
  }

  /**
   * An event scan's seeds: the root's hosts first seen since `since` that permute did not find itself
   * (hosts_domain_feed_idx), at most SEEDS of them, the newest first.
   */
  @GenerateSql({ params: [1, '2026-01-01T00:00:00.000000Z'] })
  async seeds(domainId: number, since: string): Promise<Set<string>> {
    const found = await rows<{ host: string }>(
      this.db,
      `SELECT host FROM hosts WHERE domain_id = $1 AND first_seen_at >= $2::timestamptz AND sources & ${SOURCE_BITS.permute} = 0
        ORDER BY first_seen_at DESC LIMIT $3`,
      [domainId, since, SEEDS],
    );
    return new Set(found.map((r) => r.host));
  }

  /** The names tried on the root within `days` that did not resolve (permute_tried's primary key). */
  @GenerateSql({ params: [1, 30] })
  async recentlyTried(domainId: number, days: number): Promise<Set<string>> {
    const tried = await rows<{ host: string }>(
      this.db,
      `SELECT host FROM permute_tried WHERE domain_id = $1 AND tried_at > now() - make_interval(days => $2)`,
      [domainId, days],
    );
    return new Set(tried.map((r) => r.host));
  }

  @GenerateSql({ params: [1] })
  async yields(domainId: number): Promise<Yields> {
    const found = await rows<{ pattern: Pattern; tried: number; hits: number }>(
      this.db,
      `SELECT pattern, tried::int, hits::int FROM permute_yields WHERE domain_id = $1`,
      [domainId],
    );
    return Object.fromEntries(found.map((r) => [r.pattern, { tried: r.tried, hits: r.hits }]));
  }

  /**
   * After a batch: the names that did not resolve go into the negative cache (tried again after
   * PERMUTE_RETRY_DAYS), and each pattern's tries and hits are added to the root's, in one statement.
   */
  @GenerateSql({ params: [1, ['nope.example.com'], { number: { tried: 10, hits: 1 } }] })
  async recordBatch(domainId: number, misses: string[], tally: Yields): Promise<void> {
    const patterns = Object.entries(tally).map(([pattern, y]) => ({ pattern, ...y }));
    await affected(
      this.db,
      `WITH missed AS (
         INSERT INTO permute_tried (domain_id, host) SELECT $1, unnest($2::text[])
         ON CONFLICT (domain_id, host) DO UPDATE SET tried_at = now()
       )
       INSERT INTO permute_yields (domain_id, pattern, tried, hits)
       SELECT $1, p.pattern, p.tried, p.hits FROM jsonb_to_recordset($3::jsonb) AS p(pattern text, tried int, hits int)
       ON CONFLICT (domain_id, pattern)
         DO UPDATE SET tried = permute_yields.tried + excluded.tried, hits = permute_yields.hits + excluded.hits`,
      [domainId, misses, JSON.stringify(patterns)],
    );
  }

  /** The scan's counters of the source, beside what every source gets (scans.source_stats, ScanStoreRepository). */
  @GenerateSql({ params: [SCAN_ID, { candidates: 10, queries: 14, hits: 2 }] })
  async recordStats(scanId: string, stats: PermuteStats): Promise<void> {
    await affected(
      this.db,
      `UPDATE scans
          SET source_stats = source_stats || jsonb_build_object('permute', coalesce(source_stats -> 'permute', '{}') || $2::jsonb)
        WHERE id = $1`,
      [scanId, JSON.stringify(stats)],
    );
  }
}
