import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { domainNewPartsSql, isoSql, ReplicaReads, rollupEdge, rows, type Statement } from '../database/sql.js';
import type { NewCountsDto, StatsTotalsDto, TimeseriesPointDto, TopDomainDto } from './dto/stats.dto.js';
import type { Bucket } from './dto/stats.query.js';

const WINDOWS = ['last_hour', 'last_day', 'last_week', 'last_month', 'last_6_months'] as const;

@Injectable()
export class StatsRepository {
  /** Read endpoints' statements: on a replica when there are any. */
  private readonly db: ReplicaReads;

  constructor(@InjectDataSource() source: DataSource) {
    this.db = new ReplicaReads(source);
  }

  /** Totals from the domains' live counters: no count over hosts. */
  async totals(): Promise<StatsTotalsDto> {
    const [row] = await rows<StatsTotalsDto>(this.db, statsTotalsStatement().sql);
    return row;
  }

  /** New-host counts for the standard windows (see newCountsStatement). */
  async newCounts(): Promise<NewCountsDto> {
    const [row] = await rows<NewCountsDto>(this.db, newCountsStatement().sql);
    return row;
  }

  topDomains(since: string, limit: number): Promise<TopDomainDto[]> {
    const { sql, params } = topDomainsStatement(since, limit);
    return rows<TopDomainDto>(this.db, sql, params);
  }

  timeseries(bucket: Bucket, since: string): Promise<TimeseriesPointDto[]> {
    const { sql, params } = timeseriesStatement(bucket, since);
    return rows<TimeseriesPointDto>(this.db, sql, params);
  }
}

// The statements of GET /stats, /stats/top-domains and /stats/timeseries, exported for the benchmark's floor.

export function statsTotalsStatement(): Statement {
  return {
    sql: `SELECT count(*)::int AS domains, count(*) FILTER (WHERE enabled)::int AS enabled_domains,
              coalesce(sum(total_subdomains), 0)::float8 AS subdomains,
              coalesce(sum(active_subdomains), 0)::float8 AS active_subdomains,
              coalesce(sum(total_subdomains - active_subdomains), 0)::float8 AS inactive_subdomains
         FROM domains`,
    params: [],
  };
}

/**
 * New-host counts for the standard windows: whole hours from the new_host_counts rollup, plus the hosts of
 * the window's first, partial hour counted exactly (a range of at most an hour on hosts_new_feed_idx).
 */
export function newCountsStatement(): Statement {
  return {
    sql: `WITH w AS (
         SELECT name, now() - span AS since, date_trunc('hour', now() - span, 'UTC') + interval '1 hour' AS edge
           FROM (VALUES ('last_hour', interval '1 hour'), ('last_day', interval '1 day'), ('last_week', interval '7 days'),
                        ('last_month', interval '30 days'), ('last_6_months', interval '182 days')) AS v(name, span)
       ), counts AS (
         SELECT w.name,
                (SELECT coalesce(sum(n), 0) FROM new_host_counts c WHERE c.hour >= w.edge)
                + (SELECT count(*) FROM hosts h WHERE h.first_seen_at >= w.since AND h.first_seen_at < w.edge) AS n
           FROM w
       )
       SELECT ${WINDOWS.map((w) => `(SELECT n FROM counts WHERE name = '${w}')::float8 AS ${w}`).join(', ')}`,
    params: [],
  };
}

/**
 * Domains with the most hosts first seen since a moment; ties by name. Whole UTC days come from the per-domain
 * day rollup, the whole hours before the first of them from the hour rollup, and the first partial hour from
 * hosts_new_feed_idx: the cost follows the domains and days in the window, not the hosts.
 */
export function topDomainsStatement(since: string, limit: number): Statement {
  return {
    sql: `WITH counts AS (
         SELECT domain_id, sum(n) AS n FROM (${domainNewPartsSql('$1::timestamptz')}) parts GROUP BY domain_id
       )
       SELECT d.domain, c.n::int AS new_count FROM counts c JOIN domains d ON d.id = c.domain_id
        ORDER BY c.n DESC, d.domain LIMIT $2`,
    params: [since, limit],
  };
}

/**
 * New hosts per bucket from since to now, oldest first, empty buckets as 0; buckets in UTC. Whole hours come
 * from the new_host_counts rollup, the first partial hour from hosts_new_feed_idx.
 */
export function timeseriesStatement(bucket: Bucket, since: string): Statement {
  return {
    sql: `WITH buckets AS (
         SELECT generate_series(date_trunc($1, $2::timestamptz AT TIME ZONE 'UTC'),
                                date_trunc($1, now() AT TIME ZONE 'UTC'),
                                ('1 ' || $1)::interval) AS ts
       ), counts AS MATERIALIZED (
         SELECT date_trunc($1, hour AT TIME ZONE 'UTC') AS ts, sum(n) AS n
           FROM new_host_counts WHERE hour >= ${rollupEdge('$2::timestamptz')} GROUP BY 1
         UNION ALL
         SELECT date_trunc($1, first_seen_at AT TIME ZONE 'UTC'), count(*)
           FROM hosts WHERE first_seen_at >= $2::timestamptz AND first_seen_at < ${rollupEdge('$2::timestamptz')} GROUP BY 1
       )
       SELECT ${isoSql("b.ts AT TIME ZONE 'UTC'")} AS ts, coalesce(sum(c.n), 0)::float8 AS new_subdomains
         FROM buckets b LEFT JOIN counts c ON c.ts = b.ts
        GROUP BY b.ts
        ORDER BY b.ts`,
    params: [bucket, since],
  };
}
