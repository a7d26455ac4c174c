import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { GenerateSql } from '../database/generate-sql.js';

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

/** The scan sources whose names can head a scan's error (`crtsh: HTTP 502 …`; SourceError). */
const SCAN_SOURCE_NAMES = ['crtsh', 'dns', 'command', 'permute'];

/**
 * Each source's health and yield over the scans of a window, from what every scan keeps: its source_stats (each
 * source's ms, and with the scan's success its names, seen and new) and its error, which names the source that failed.
 */
@Injectable()
export class SourceHealthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * One pass over the window's finished scans (scans_started_idx, or scans_domain_idx for one root), each source a
   * scan ran or failed on a row, grouped by source and by day.
   */
  @GenerateSql({ name: 'all', params: [30, null] }, { name: 'domain', params: [30, 1] })
  window(days: number, domainId: number | null): Promise<SourceHealthRow[]> {
    return rows<SourceHealthRow>(
      this.db,
      `WITH recent AS (
         SELECT status, error, finished_at, source_stats FROM scans
          WHERE started_at >= now() - make_interval(days => $1) AND status <> 'running'
            AND ($2::int IS NULL OR domain_id = $2)
       ), outcomes AS (
         SELECT e.key AS source, r.finished_at, r.status = 'success' AS ok, false AS failed, NULL AS error,
                (e.value ->> 'ms')::bigint AS ms, coalesce((e.value ->> 'names')::bigint, 0) AS names,
                coalesce((e.value ->> 'seen')::bigint, 0) AS seen, coalesce((e.value ->> 'new')::bigint, 0) AS new
           FROM recent r CROSS JOIN LATERAL jsonb_each(r.source_stats) e
         UNION ALL
         SELECT split_part(r.error, ':', 1), r.finished_at, false, true, r.error, NULL, 0, 0, 0
           FROM recent r WHERE r.status = 'error' AND split_part(r.error, ':', 1) = ANY ($3::text[])
       ), by_day AS (
         SELECT source, to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                count(*) FILTER (WHERE ok)::int AS successes, count(*) FILTER (WHERE failed)::int AS failures,
                sum(names)::int AS names, sum(new)::int AS new
           FROM outcomes GROUP BY 1, 2
       )
       SELECT o.source, count(*) FILTER (WHERE o.ok)::int AS successes, count(*) FILTER (WHERE o.failed)::int AS failures,
              (array_agg(o.error ORDER BY o.finished_at DESC) FILTER (WHERE o.failed))[1] AS last_failure,
              ${isoSql('max(o.finished_at) FILTER (WHERE o.failed)')} AS last_failure_at,
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY o.ms))::int AS ms_median,
              round(percentile_cont(0.95) WITHIN GROUP (ORDER BY o.ms))::int AS ms_p95,
              sum(o.names)::int AS names, sum(o.seen)::int AS seen, sum(o.new)::int AS new,
              (SELECT jsonb_agg(jsonb_build_object('day', d.day, 'successes', d.successes, 'failures', d.failures,
                                                   'names', d.names, 'new', d.new) ORDER BY d.day)
                 FROM by_day d WHERE d.source = o.source) AS days
         FROM outcomes o GROUP BY o.source ORDER BY o.source`,
      [days, domainId, SCAN_SOURCE_NAMES],
    );
  }
}
