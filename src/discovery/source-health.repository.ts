import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { GenerateSql } from '../database/generate-sql.js';
import { SCAN_SOURCE_NAMES } from '../config/environment.js';
import { bucketMsSql } from './source-days.sql.js';

/** What the scans of a window say of one source, and of it by day. */
export interface SourceHealthRow {
  source: string;
  successes: number;
  failures: number;
  last_failure: string | null;
  last_failure_at: string | null;
  ms_median: number | null;
  ms_p95: number | null;
  names: number;
  seen: number;
  new: number;
  days: { day: string; successes: number; failures: number; names: number; new: number }[];
}

/**
 * The window: scans that ended from the start of the UTC day `$1 - 1` days before today, whatever the session's
 * TimeZone (a date's own AT TIME ZONE would read it in that zone).
 */
export const SINCE = `(((now() AT TIME ZONE 'UTC')::date - ($1 - 1))::timestamp AT TIME ZONE 'UTC')`;

/**
 * Each source's health and yield over a window of days. Of every root, from the daily roll-ups the scans keep as
 * they end (source-days.sql.ts): a few rows a day whatever the number of roots, the times' percentiles read from
 * buckets (to within 5 %). Of one root, from its scans themselves (scans_domain_idx): their source_stats (each
 * source's ms, names, seen and new) and their errors, which name the source that failed.
 */
@Injectable()
export class SourceHealthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Where a window of `days` starts (ISO, microseconds). */
  @GenerateSql({ params: [30] })
  async since(days: number): Promise<string> {
    const [row] = await rows<{ since: string }>(this.db, `SELECT ${isoSql(SINCE)} AS since`, [days]);
    return row.since;
  }

  /** Every root: the days' roll-ups (sums as float8, exact to 2^53: a year of every root's names passes 2^31) (source_days_pkey, source_day_ms_pkey), the percentiles from the buckets' sums. */
  @GenerateSql({ params: [30] })
  everyRoot(days: number): Promise<SourceHealthRow[]> {
    return rows<SourceHealthRow>(
      this.db,
      `WITH window_days AS (
         SELECT * FROM source_days WHERE day >= (now() AT TIME ZONE 'UTC')::date - ($1 - 1)
       ), buckets AS (
         SELECT source, bucket, sum(scans) AS scans FROM source_day_ms
          WHERE day >= (now() AT TIME ZONE 'UTC')::date - ($1 - 1) GROUP BY source, bucket
       ), cumulated AS (
         SELECT source, bucket, sum(scans) OVER (PARTITION BY source ORDER BY bucket) AS below,
                sum(scans) OVER (PARTITION BY source) AS total
           FROM buckets
       ), percentiles AS (
         SELECT source, ${bucketMsSql('min(bucket) FILTER (WHERE below >= 0.5 * total)')}::int AS ms_median,
                ${bucketMsSql('min(bucket) FILTER (WHERE below >= 0.95 * total)')}::int AS ms_p95
           FROM cumulated GROUP BY source
       )
       SELECT d.source, sum(d.successes)::float8 AS successes, sum(d.failures)::float8 AS failures,
              (array_agg(d.last_failure ORDER BY d.last_failure_at DESC) FILTER (WHERE d.last_failure IS NOT NULL))[1]
                AS last_failure,
              ${isoSql('max(d.last_failure_at)')} AS last_failure_at, p.ms_median, p.ms_p95,
              sum(d.names)::float8 AS names, sum(d.seen)::float8 AS seen, sum(d.new)::float8 AS new,
              jsonb_agg(jsonb_build_object('day', d.day, 'successes', d.successes, 'failures', d.failures,
                                           'names', d.names, 'new', d.new) ORDER BY d.day) AS days
         FROM window_days d LEFT JOIN percentiles p ON p.source = d.source
        GROUP BY d.source, p.ms_median, p.ms_p95
        ORDER BY d.source`,
      [days],
    );
  }

  /**
   * One root: its scans of the window (scans_domain_idx), each source a scan ran (and succeeded with) or failed on a
   * row, grouped by source and by day; the times are the exact percentiles. The same figures as everyRoot's, but
   * for the buckets.
   */
  @GenerateSql({ params: [30, 1] })
  ofRoot(days: number, domainId: number): Promise<SourceHealthRow[]> {
    return rows<SourceHealthRow>(
      this.db,
      `WITH recent AS (
         SELECT status, error, finished_at, source_stats FROM scans
          WHERE domain_id = $2 AND status <> 'running' AND finished_at >= ${SINCE}
       ), outcomes AS (
         SELECT e.key AS source, r.finished_at, true AS ok, NULL AS error, (e.value ->> 'ms')::bigint AS ms,
                coalesce((e.value ->> 'names')::bigint, 0) AS names, coalesce((e.value ->> 'seen')::bigint, 0) AS seen,
                coalesce((e.value ->> 'new')::bigint, 0) AS new
           FROM recent r CROSS JOIN LATERAL jsonb_each(r.source_stats) e
          WHERE r.status = 'success'
         UNION ALL
         SELECT split_part(r.error, ':', 1), r.finished_at, false, r.error, NULL, 0, 0, 0
           FROM recent r WHERE r.status = 'error' AND split_part(r.error, ':', 1) = ANY ($3::text[])
       ), by_day AS (
         SELECT source, (finished_at AT TIME ZONE 'UTC')::date AS day, count(*) FILTER (WHERE ok)::int AS successes,
                count(*) FILTER (WHERE NOT ok)::int AS failures, sum(names)::float8 AS names, sum(new)::float8 AS new
           FROM outcomes GROUP BY 1, 2
       )
       SELECT o.source, count(*) FILTER (WHERE o.ok)::int AS successes, count(*) FILTER (WHERE NOT o.ok)::int AS failures,
              (array_agg(o.error ORDER BY o.finished_at DESC) FILTER (WHERE NOT o.ok))[1] AS last_failure,
              ${isoSql('max(o.finished_at) FILTER (WHERE NOT o.ok)')} AS last_failure_at,
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY o.ms))::int AS ms_median,
              round(percentile_cont(0.95) WITHIN GROUP (ORDER BY o.ms))::int AS ms_p95,
              sum(o.names)::float8 AS names, sum(o.seen)::float8 AS seen, sum(o.new)::float8 AS new,
              (SELECT jsonb_agg(jsonb_build_object('day', d.day, 'successes', d.successes, 'failures', d.failures,
                                                   'names', d.names, 'new', d.new) ORDER BY d.day)
                 FROM by_day d WHERE d.source = o.source) AS days
         FROM outcomes o GROUP BY o.source ORDER BY o.source`,
      [days, domainId, SCAN_SOURCE_NAMES],
    );
  }
}
