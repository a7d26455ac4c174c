import { Injectable } from '@nestjs/common';
import { Environment } from '../config/environment.js';
import { DomainsService } from '../domains/domains.service.js';
import type { SourceHealthDto } from './dto/source-health.dto.js';
import { SourceHealthRepository } from './source-health.repository.js';

/** A source floods when it reported at least this many names in the window and fewer than half resolved. */
export const FLOOD_NAMES = 100;

export interface SourceHealthReport {
  data: SourceHealthDto[];
  meta: { days: number; domain: string | null; since: string };
}

/** What each scan source is worth: GET /scans/sources, `cli sources` and the dashboard's overview. */
@Injectable()
export class SourceHealthService {
  constructor(
    private readonly repository: SourceHealthRepository,
    private readonly tracked: DomainsService,
    private readonly env: Environment,
  ) {}

  /**
   * Over the scans that ended from the start of the UTC day `days - 1` days ago: the sources SCAN_SOURCES runs, in its order (with nothing to show when no scan in the window ran them), then
   * those that ran in the window and are no longer configured.
   */
  async report(days: number, domain?: string): Promise<SourceHealthReport> {
    const root = domain === undefined ? null : await this.tracked.requireTracked(domain);
    const [since, rows] = await Promise.all([
      this.repository.since(days),
      root ? this.repository.ofRoot(days, root.id) : this.repository.everyRoot(days),
    ]);
    const found = new Map(rows.map((r) => [r.source, r]));
    const names = [...new Set([...this.env.SCAN_SOURCES, ...found.keys()])];
    const data = names.map((source): SourceHealthDto => {
      const r = found.get(source);
      const names = r?.names ?? 0;
      const seen = r?.seen ?? 0;
      return {
        source,
        configured: this.env.SCAN_SOURCES.includes(source as (typeof this.env.SCAN_SOURCES)[number]),
        successes: r?.successes ?? 0,
        failures: r?.failures ?? 0,
        last_failure: r?.last_failure ?? null,
        last_failure_at: r?.last_failure_at ?? null,
        ms_median: r?.ms_median ?? null,
        ms_p95: r?.ms_p95 ?? null,
        names,
        seen,
        new: r?.new ?? 0,
        flooding: names >= FLOOD_NAMES && seen * 2 < names,
        days: r?.days ?? [],
      };
    });
    return { data, meta: { days, domain: root?.domain ?? null, since } };
  }
}
