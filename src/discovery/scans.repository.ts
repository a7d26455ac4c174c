import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { isoSql, pageWithCount, Params, type Statement } from '../database/sql.js';
import { jsonRow } from '../database/json-pages.js';
import { ReplicaReads } from '../database/db.js';
import { ScanEntity, type ScanStatus } from './entities/scan.entity.js';
import { ListCounts } from '../database/list-counts.js';
import { GenerateSql } from '../database/generate-sql.js';
import { ScanDto, WorkerStatusDto } from './dto/scan.dto.js';

const SCAN_COLUMNS = `s.id, d.domain, d.platform_slug AS platform, s.trigger, s.status, s.found_count, s.new_count,
  s.reactivated_count, s.inactive_count, s.dropped_count, s.source_stats, s.error, ${isoSql('s.started_at')} AS started_at,
  ${isoSql('s.finished_at')} AS finished_at,
  (extract(epoch FROM s.finished_at - s.started_at) * 1000)::int AS duration_ms`;

export interface ScanFilters {
  /** A root domain's name: its scans are found through its id in the same statement. */
  domain?: string;
  platform?: string;
  status?: ScanStatus;
}

@Injectable()
export class ScansRepository {
  /** Read endpoints' statements: on a replica when there are any. */
  private readonly reads: ReplicaReads;

  constructor(
    @InjectRepository(ScanEntity) private readonly scans: Repository<ScanEntity>,
    private readonly counts: ListCounts,
  ) {
    this.reads = new ReplicaReads(scans.manager.connection);
  }

  /**
   * Scans newest first (scans_started_idx; scans_domain_idx with a domain), rendered as JSON, and the count, counted
   * once per data version (ListCounts).
   */
  @GenerateSql(
    { name: 'all', dto: ScanDto, params: [{}, 100, 0] },
    {
      name: 'a domain’s failed scans',
      params: [{ domain: 'example.com', platform: 'hackerone', status: 'error' }, 100, 0],
    },
  )
  listPage(filters: ScanFilters, limit: number, offset: number) {
    return this.counts.pageAndTotal(this.reads, scanListStatements(filters, limit, offset), limit);
  }

  /** One scan rendered as JSON; null when there is none with that id. */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000'] })
  findById(id: string): Promise<string | null> {
    return jsonRow(this.reads, scanStatement(id));
  }

  /** The worker's state from the tables themselves, so every process reports the same; rendered as JSON. */
  @GenerateSql({ dto: WorkerStatusDto, params: [24] })
  async workerStatus(intervalHours: number): Promise<string> {
    return (await jsonRow(this.reads, workerStatusStatement(intervalHours)))!;
  }
}

/** GET /scans: a page newest first and the count. Exported for the benchmark's floor. */
export function scanListStatements(
  filters: ScanFilters,
  limit: number,
  offset: number,
): { page: Statement; count: Statement } {
  const q = new Params();
  const where: string[] = [];
  // The domain's id by domains_domain_key, then its scans by scans_domain_idx: one round trip. An unknown domain
  // matches nothing; the caller tells it from a domain without scans only when the page is empty.
  if (filters.domain !== undefined)
    where.push(`s.domain_id = (SELECT id FROM domains WHERE domain = ${q.p(filters.domain)})`);
  if (filters.platform) where.push(`d.platform_slug = ${q.p(filters.platform)}`);
  if (filters.status) where.push(`s.status = ${q.p(filters.status)}`);
  const joinDomain = 'JOIN domains d ON d.id = s.domain_id';
  return pageWithCount(q, {
    select: SCAN_COLUMNS,
    from: `scans s ${joinDomain}`,
    // Every scan has its domain: the count reads scans alone unless a platform is asked for.
    countFrom: filters.platform ? undefined : 'scans s',
    where,
    orderBy: 's.started_at DESC, s.id DESC',
    limit,
    offset,
    // The page's scans first (with their domains when a platform is asked for), then each one's domain.
    pageFirst: { alias: 's', join: joinDomain },
  });
}

/** GET /scans/{id}. Exported for the benchmark's floor. */
export function scanStatement(id: string): Statement {
  return {
    sql: `SELECT ${SCAN_COLUMNS} FROM scans s JOIN domains d ON d.id = s.domain_id WHERE s.id = $1::uuid`,
    params: [id],
    prepare: true,
  };
}

/**
 * GET /scans/status: health and cycle as two JSON columns (one row). Sweep coverage is the share of enabled
 * domains scanned within the interval, 1 when none is enabled. Exported for the benchmark's floor.
 */
export function workerStatusStatement(intervalHours: number): Statement {
  return {
    sql: `WITH recent AS (
         SELECT status, error, finished_at FROM scans WHERE finished_at >= now() - interval '30 minutes'
       ), last_error AS (
         SELECT error, finished_at FROM scans WHERE status = 'error' ORDER BY finished_at DESC NULLS LAST LIMIT 1
       )
       SELECT json_build_object(
                'running_scans', (SELECT count(*) FROM scans WHERE status = 'running'),
                'scanned_30m', (SELECT count(*) FROM recent),
                'errors_30m', (SELECT count(*) FROM recent WHERE status = 'error'),
                'last_error', (SELECT error FROM last_error),
                'last_error_at', (SELECT ${isoSql('finished_at')} FROM last_error)
              ) AS health,
              json_build_object(
                'due_domains', c.due_domains,
                'total_domains', c.total_domains,
                'enabled_domains', c.enabled_domains,
                'queued_domains', c.queued_domains,
                'sweep_coverage', CASE WHEN c.enabled_domains = 0 THEN 1
                                  ELSE round(c.scanned::numeric / c.enabled_domains, 4)::float8 END,
                'interval_hours', $1::int
              ) AS cycle
         FROM (SELECT count(*) FILTER (WHERE enabled AND next_scan_at <= now()) AS due_domains,
                      count(*) AS total_domains,
                      count(*) FILTER (WHERE enabled) AS enabled_domains,
                      count(*) FILTER (WHERE queued_at IS NOT NULL) AS queued_domains,
                      count(*) FILTER (WHERE enabled AND last_scanned_at >= now() - make_interval(hours => $1)) AS scanned
                 FROM domains) c`,
    params: [intervalHours],
  };
}
