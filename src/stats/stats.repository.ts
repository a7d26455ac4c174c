import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows, type Statement } from '../database/sql.js';
import { domainNewPartsSql, newHostPartsSql } from '../database/new-host-counts.js';
import { ReplicaReads } from '../database/db.js';
import type { Bucket } from './dto/stats.query.js';
import { GenerateSql } from '../database/generate-sql.js';
import { NewCountsDto, StatsTotalsDto, TimeseriesPointDto, TopDomainDto } from './dto/stats.dto.js';

const WINDOWS = [
  ['last_hour', '1 hour'],
  ['last_day', '1 day'],
  ['last_week', '7 days'],
  ['last_month', '30 days'],
  ['last_6_months', '182 days'],
] as const;

@Injectable()
export class StatsRepository {
  /** Read endpoints' statements: on a replica when there are any. */
  private readonly db: ReplicaReads;

  constructor(@InjectDataSource() source: DataSource) {
    this.db = new ReplicaReads(source);
  }

  /** Totals from the domains' live counters: no count over hosts. */
  @GenerateSql()
  async totals(): Promise<StatsTotalsDto> {
    const [row] = await rows<StatsTotalsDto>(this.db, statsTotalsStatement().sql);
    return row;
  }

  /** New-host counts for the standard windows (see newCountsStatement). */
  @GenerateSql()
  async newCounts(): Promise<NewCountsDto> {
    const [row] = await rows<NewCountsDto>(this.db, newCountsStatement().sql);
    return row;
  }

  @GenerateSql({ dto: TopDomainDto, params: ['2026-01-01T00:00:00.000000Z', 10] })
  topDomains(since: string, limit: number): Promise<TopDomainDto[]> {
    const { sql, params } = topDomainsStatement(since, limit);
    return rows<TopDomainDto>(this.db, sql, params);
  }

  @GenerateSql(
    { name: 'hours', dto: TimeseriesPointDto, params: ['hour', '2026-01-01T00:00:00.000000Z'] },
    { name: 'days', dto: TimeseriesPointDto, params: ['day', '2026-01-01T00:00:00.000000Z'] },
  )
  timeseries(bucket: Bucket, since: string): Promise<TimeseriesPointDto[]> {
    const { sql, params } = timeseriesStatement(bucket, since);
    return rows<TimeseriesPointDto>(this.db, sql, params);
  }

  /** New hosts per UTC day of each platform over the last `days` days, today included (see platformDaysStatement). */
  @GenerateSql({ params: [30] })
  platformDays(days: number): Promise<DayCount[]> {
    const { sql, params } = platformDaysStatement(days);
    return rows<DayCount>(this.db, sql, params);
  }

  /** New hosts per UTC day under one domain over the last `days` days, today included, empty days as 0. */
  @GenerateSql({ params: [1, 30] })
  domainDays(domainId: number, days: number): Promise<DayCount[]> {
    const { sql, params } = domainDaysStatement(domainId, days);
    return rows<DayCount>(this.db, sql, params);
  }
}

/** New hosts first seen on one UTC day (`day` as YYYY-MM-DD), of one platform when the series is per platform. */
export interface DayCount {
  platform?: string;
  day: string;
  n: number;
}

const DAYS_SQL = `generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - ($1::int - 1) * interval '1 day',
                                  date_trunc('day', now() AT TIME ZONE 'UTC'), interval '1 day')`;

/**
 * Each platform's new hosts per UTC day, every day of the window for every platform (0 when none): the hourly
 * rollup (new_host_counts, its primary key leads with the hour), about 24 rows per platform and day, never the
 * hosts.
 */
export function platformDaysStatement(days: number): Statement {
  return {
    sql: `WITH counts AS (
         SELECT platform_slug, date_trunc('day', hour AT TIME ZONE 'UTC') AS day, sum(n) AS n
           FROM new_host_counts
          WHERE hour >= (date_trunc('day', now() AT TIME ZONE 'UTC') - ($1::int - 1) * interval '1 day') AT TIME ZONE 'UTC'
          GROUP BY 1, 2
       )
       SELECT p.slug AS platform, to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(c.n, 0)::float8 AS n
         FROM platforms p CROSS JOIN ${DAYS_SQL} AS d(day)
         LEFT JOIN counts c ON c.platform_slug = p.slug AND c.day = d.day
        ORDER BY p.slug, d.day`,
    params: [days],
  };
}

/** One domain's new hosts per UTC day from its day rollup (domain_new_host_days, keyed by domain and day). */
export function domainDaysStatement(domainId: number, days: number): Statement {
  return {
    sql: `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(c.n, 0)::float8 AS n
         FROM ${DAYS_SQL} AS d(day)
         LEFT JOIN domain_new_host_days c
           ON c.domain_id = $2 AND c.day = d.day AT TIME ZONE 'UTC'
        ORDER BY d.day`,
    params: [days, domainId],
  };
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

/** New-host counts for the standard windows, each added up from the rollups (newHostPartsSql). */
export function newCountsStatement(): Statement {
  const count = (span: string) =>
    `(SELECT coalesce(sum(n), 0) FROM (${newHostPartsSql(`now() - interval '${span}'`, { byPlatform: false })}) parts)::float8`;
  return { sql: `SELECT ${WINDOWS.map(([name, span]) => `${count(span)} AS ${name}`).join(', ')}`, params: [] };
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
 * New hosts per bucket from since to now, oldest first, empty buckets as 0; buckets in UTC, added up from the
 * rollups (newHostPartsSql: every bucket is whole hours).
 */
export function timeseriesStatement(bucket: Bucket, since: string): Statement {
  return {
    sql: `WITH buckets AS (
         SELECT generate_series(date_trunc($1, $2::timestamptz AT TIME ZONE 'UTC'),
                                date_trunc($1, now() AT TIME ZONE 'UTC'),
                                ('1 ' || $1)::interval) AS ts
       ), counts AS MATERIALIZED (
         SELECT date_trunc($1, at AT TIME ZONE 'UTC') AS ts, sum(n) AS n
           FROM (${newHostPartsSql('$2::timestamptz', { byPlatform: false })}) parts GROUP BY 1
       )
       SELECT ${isoSql("b.ts AT TIME ZONE 'UTC'")} AS ts, coalesce(sum(c.n), 0)::float8 AS new_subdomains
         FROM buckets b LEFT JOIN counts c ON c.ts = b.ts
        GROUP BY b.ts
        ORDER BY b.ts`,
    params: [bucket, since],
  };
}
