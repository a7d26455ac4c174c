import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import type { NewCountsDto, StatsTotalsDto, TimeseriesPointDto, TopDomainDto } from './dto/stats.dto.js';
import type { Bucket } from './dto/stats.query.js';

@Injectable()
export class StatsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Totals from the domains' live counters: no count over hosts. */
  async totals(): Promise<StatsTotalsDto> {
    const [row] = await rows<StatsTotalsDto>(
      this.db,
      `SELECT count(*)::int AS domains, count(*) FILTER (WHERE enabled)::int AS enabled_domains,
              coalesce(sum(total_subdomains), 0)::float8 AS subdomains,
              coalesce(sum(active_subdomains), 0)::float8 AS active_subdomains,
              coalesce(sum(total_subdomains - active_subdomains), 0)::float8 AS inactive_subdomains
         FROM domains`,
    );
    return row;
  }

  /** New-host counts for the standard windows in one range scan of hosts_new_feed_idx. */
  async newCounts(): Promise<NewCountsDto> {
    const [row] = await rows<NewCountsDto>(
      this.db,
      `SELECT count(*) FILTER (WHERE first_seen_at >= now() - interval '1 hour')::int AS last_hour,
              count(*) FILTER (WHERE first_seen_at >= now() - interval '1 day')::int AS last_day,
              count(*) FILTER (WHERE first_seen_at >= now() - interval '7 days')::int AS last_week,
              count(*) FILTER (WHERE first_seen_at >= now() - interval '30 days')::int AS last_month,
              count(*)::int AS last_6_months
         FROM hosts WHERE first_seen_at >= now() - interval '182 days'`,
    );
    return row;
  }

  /** Domains with the most hosts first seen since a moment; ties by name (hosts_new_feed_idx range). */
  topDomains(since: string, limit: number): Promise<TopDomainDto[]> {
    return rows<TopDomainDto>(
      this.db,
      `WITH counts AS (
         SELECT domain_id, count(*)::int AS n FROM hosts WHERE first_seen_at >= $1::timestamptz GROUP BY domain_id
       )
       SELECT d.domain, c.n AS new_count FROM counts c JOIN domains d ON d.id = c.domain_id
        ORDER BY c.n DESC, d.domain LIMIT $2`,
      [since, limit],
    );
  }

  /** New hosts per bucket from since to now, oldest first, empty buckets as 0; buckets in UTC. */
  timeseries(bucket: Bucket, since: string): Promise<TimeseriesPointDto[]> {
    return rows<TimeseriesPointDto>(
      this.db,
      `WITH buckets AS (
         SELECT generate_series(date_trunc($1, $2::timestamptz AT TIME ZONE 'UTC'),
                                date_trunc($1, now() AT TIME ZONE 'UTC'),
                                ('1 ' || $1)::interval) AS ts
       ), counts AS (
         SELECT date_trunc($1, first_seen_at AT TIME ZONE 'UTC') AS ts, count(*)::int AS n
           FROM hosts WHERE first_seen_at >= $2::timestamptz GROUP BY 1
       )
       SELECT ${isoSql("b.ts AT TIME ZONE 'UTC'")} AS ts, coalesce(c.n, 0) AS new_subdomains
         FROM buckets b LEFT JOIN counts c ON c.ts = b.ts
        ORDER BY b.ts`,
      [bucket, since],
    );
  }
}
