import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { windowStart } from '../common/validation/window.js';
import { PlatformsService } from '../platforms/platforms.service.js';
import type { Bucket, TimeseriesQuery, TopDomainsQuery } from './dto/stats.query.js';
import { StatsRepository } from './stats.repository.js';

const BUCKET_HOURS: Record<Bucket, number> = { hour: 1, day: 24, week: 168, month: 720 };
export const MAX_BUCKETS = 10_000;

@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsRepository,
    private readonly platforms: PlatformsService,
  ) {}

  async overview() {
    const [totals, fresh, platforms] = await Promise.all([
      this.stats.totals(),
      this.stats.newCounts(),
      this.platforms.list(),
    ]);
    return { totals, new: fresh, platforms };
  }

  async topDomains(query: TopDomainsQuery) {
    const since = windowStart(query);
    return { data: await this.stats.topDomains(since, query.limit), meta: { since, limit: query.limit } };
  }

  async timeseries(query: TimeseriesQuery) {
    const since = windowStart(query);
    const buckets = (Date.now() - Date.parse(since)) / 3_600_000 / BUCKET_HOURS[query.bucket];
    if (buckets > MAX_BUCKETS) {
      throw ApiError.invalidQuery(
        `the window holds more than ${MAX_BUCKETS} ${query.bucket} buckets; use a larger bucket or a later since`,
      );
    }
    const data = await this.stats.timeseries(query.bucket, since);
    return { data, meta: { bucket: query.bucket, since, count: data.length } };
  }
}
