import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { windowStart } from '../common/validation/window.js';
import { RenderedJson } from '../common/rendered-json.js';
import { PlatformsRepository } from '../platforms/platforms.repository.js';
import type { Bucket, TimeseriesQuery, TopDomainsQuery } from './dto/stats.query.js';
import { type DayCount, StatsRepository } from './stats.repository.js';

const BUCKET_HOURS: Record<Bucket, number> = { hour: 1, day: 24, week: 168, month: 720 };
export const MAX_BUCKETS = 10_000;

@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsRepository,
    private readonly platforms: PlatformsRepository,
  ) {}

  /** Totals and new counts decoded (one row each), the platforms as PostgreSQL rendered them. */
  async overview(): Promise<RenderedJson> {
    const [totals, fresh, platforms] = await Promise.all([
      this.stats.totals(),
      this.stats.newCounts(),
      this.platforms.withCounts(),
    ]);
    return RenderedJson.data(
      `{"totals":${JSON.stringify(totals)},"new":${JSON.stringify(fresh)},"platforms":${platforms.toString()}}`,
    );
  }

  async topDomains(query: TopDomainsQuery) {
    const since = windowStart(query);
    return { data: await this.stats.topDomains(since, query.limit), meta: { since, limit: query.limit } };
  }

  async timeseries(query: TimeseriesQuery) {
    const since = windowStart(query);
    const buckets = (Date.now() - Date.parse(since)) / 3_600_000 / BUCKET_HOURS[query.bucket];
    if (buckets > MAX_BUCKETS) {
      throw AppError.invalidQuery(
        `the window holds more than ${MAX_BUCKETS} ${query.bucket} buckets; use a larger bucket or a later since`,
      );
    }
    const data = await this.stats.timeseries(query.bucket, since);
    return { data, meta: { bucket: query.bucket, since, count: data.length } };
  }

  /** Each platform's new hosts per UTC day over the last `days` days, oldest first. */
  async platformDays(days: number): Promise<Map<string, DayCount[]>> {
    const series = new Map<string, DayCount[]>();
    for (const row of await this.stats.platformDays(days)) {
      const list = series.get(row.platform as string) ?? [];
      list.push(row);
      series.set(row.platform as string, list);
    }
    return series;
  }

  /** One domain's new hosts per UTC day over the last `days` days, oldest first. */
  domainDays(domainId: number, days: number): Promise<DayCount[]> {
    return this.stats.domainDays(domainId, days);
  }
}
