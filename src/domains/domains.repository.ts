import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, type Repository } from 'typeorm';
import {
  affected,
  containsPattern,
  isoSql,
  pageWithCount,
  Params,
  preparedRows,
  rows,
  type Statement,
} from '../database/sql.js';
import { domainNewPartsSql } from '../database/new-host-counts.js';
import { jsonRow } from '../database/json-pages.js';
import { ReplicaReads } from '../database/db.js';
import { ListCounts } from '../database/list-counts.js';
import type { DomainSort } from './dto/list-domains.query.js';
import { DomainEntity } from './entities/domain.entity.js';
import { GenerateSql } from '../database/generate-sql.js';
import { DomainDetailDto, DomainDto } from './dto/domain.dto.js';

/** A tracked domain as the endpoints under it need it: its id, and its live counters of hosts. */
export interface TrackedDomain {
  id: number;
  domain: string;
  /** Hosts recorded under it (domains.total_subdomains), and of those the active ones. */
  total: number;
  active: number;
  /** It has exclusion rules, so some hosts may be out of scope and left out of lists: counters do not count those. */
  hasScopeRules: boolean;
}

/** A tracked domain by name (domains_domain_key): prepared, as every request under /domains/{domain} asks it. */
export function trackedDomainStatement(name: string): Statement {
  return {
    sql: `SELECT d.id, d.domain, d.total_subdomains AS total, d.active_subdomains AS active,
                 EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = d.id) AS "hasScopeRules"
            FROM domains d WHERE d.domain = $1`,
    params: [name],
    prepare: true,
  };
}

export interface NewDomain {
  domain: string;
  platformSlug: string;
  program: string | null;
  enabled: boolean;
}

// Any constant, the same in every process.
const REBUILD_LOCK = 7_304_113_212;

const DOMAIN_COLUMNS = `d.domain, d.platform_slug AS platform, d.program, d.enabled, d.total_subdomains,
  d.new_subdomains_last_scan, ${isoSql('d.last_scanned_at')} AS last_scanned_at, d.last_scan_status`;

const ORDER: Record<DomainSort, string> = {
  domain: 'd.domain',
  total_subdomains: 'd.total_subdomains DESC, d.domain',
  new_subdomains_last_scan: 'd.new_subdomains_last_scan DESC, d.domain',
  last_scanned_at: 'd.last_scanned_at DESC NULLS LAST, d.domain',
};

export interface DomainFilters {
  search?: string;
  platform?: string;
  enabled?: boolean;
}

/**
 * Rebuilds the new-host rollups in one transaction, each coarser one from the finer of its kind: per domain, hours
 * from the hosts and days from the hours; per platform, minutes from the hosts and hours from the minutes. Rebuilds
 * take turns: two at once would both insert the same hours.
 */
export async function rebuildNewHostCounts(manager: EntityManager): Promise<void> {
  await manager.transaction(async (m) => {
    await rows(m, `SELECT pg_advisory_xact_lock($1)`, [REBUILD_LOCK]);
    // A rebuild reads every host (minutes at tens of millions): the request timeout is not for it.
    await affected(m, `SET LOCAL statement_timeout = 0`);
    await affected(m, `DELETE FROM domain_new_host_counts`);
    await affected(
      m,
      `INSERT INTO domain_new_host_counts (domain_id, hour, n)
       SELECT domain_id, date_trunc('hour', first_seen_at, 'UTC'), count(*) FROM hosts GROUP BY 1, 2`,
    );
    await affected(m, `DELETE FROM domain_new_host_days`);
    await affected(
      m,
      `INSERT INTO domain_new_host_days (domain_id, day, n)
       SELECT domain_id, date_trunc('day', hour, 'UTC'), sum(n) FROM domain_new_host_counts GROUP BY 1, 2`,
    );
    await affected(m, `DELETE FROM new_host_minutes`);
    await affected(
      m,
      `INSERT INTO new_host_minutes (minute, platform_slug, n)
       SELECT date_trunc('minute', h.first_seen_at, 'UTC'), d.platform_slug, count(*)
         FROM hosts h JOIN domains d ON d.id = h.domain_id GROUP BY 1, 2`,
    );
    await affected(m, `DELETE FROM new_host_counts`);
    await affected(
      m,
      `INSERT INTO new_host_counts (hour, platform_slug, n)
       SELECT date_trunc('hour', minute, 'UTC'), platform_slug, sum(n) FROM new_host_minutes GROUP BY 1, 2`,
    );
  });
}

@Injectable()
export class DomainsRepository {
  /** Read endpoints' statements: on a replica when there are any. */
  private readonly reads: ReplicaReads;

  constructor(
    @InjectRepository(DomainEntity) private readonly domains: Repository<DomainEntity>,
    private readonly counts: ListCounts,
  ) {
    this.reads = new ReplicaReads(domains.manager.connection);
  }

  @GenerateSql({ params: ['example.com'] })
  findByName(domain: string): Promise<DomainEntity | null> {
    return this.domains.findOneBy({ domain });
  }

  @GenerateSql({ params: ['example.com'] })
  async findTracked(name: string): Promise<TrackedDomain | null> {
    const { sql, params } = trackedDomainStatement(name);
    const [found] = await preparedRows<TrackedDomain>(this.domains.manager, sql, params);
    return found ?? null;
  }

  /**
   * A page of domains rendered as JSON, and the count of all that match (domains_domain_trgm_idx for search),
   * counted once per data version (ListCounts).
   */
  @GenerateSql(
    { name: 'by name', dto: DomainDto, params: [{}, 'domain', 100, 0] },
    {
      name: 'a search on a platform, by new hosts',
      dto: DomainDto,
      params: [{ search: 'exa', platform: 'hackerone', enabled: true }, 'new_subdomains_last_scan', 100, 0],
    },
  )
  listPage(filters: DomainFilters, sort: DomainSort, limit: number, offset: number) {
    return this.counts.pageAndTotal(this.reads, domainListStatements(filters, sort, limit, offset), limit);
  }

  /** One domain with its stats (see domainDetailStatement) rendered as JSON; null when it is not tracked. */
  @GenerateSql({ dto: DomainDetailDto, params: ['example.com'] })
  findDetail(domain: string): Promise<string | null> {
    return jsonRow(this.reads, domainDetailStatement(domain));
  }

  /** Inserts the domains that are not tracked yet, in one statement; returns the names it added. */
  @GenerateSql({ params: [[{ domain: 'example.org', platformSlug: 'self', program: null, enabled: true }]] })
  async insertMissing(items: NewDomain[]): Promise<string[]> {
    if (items.length === 0) return [];
    const added = await rows<{ domain: string }>(
      this.domains.manager,
      `INSERT INTO domains (domain, platform_slug, program, enabled)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[])
       ON CONFLICT (domain) DO NOTHING
       RETURNING domain`,
      [
        items.map((i) => i.domain),
        items.map((i) => i.platformSlug),
        items.map((i) => i.program),
        items.map((i) => i.enabled),
      ],
    );
    return added.map((r) => r.domain);
  }

  @GenerateSql({ params: [['absent.example'], false] })
  async setEnabled(names: string[], enabled: boolean): Promise<string[]> {
    const changed = await rows<{ domain: string }>(
      this.domains.manager,
      `UPDATE domains SET enabled = $2, updated_at = now() WHERE domain = ANY($1::text[]) RETURNING domain`,
      [names, enabled],
    );
    return changed.map((r) => r.domain);
  }

  /** Removes domains with their hosts and scans (ON DELETE CASCADE). */
  @GenerateSql({ params: [['absent.example']] })
  async remove(names: string[]): Promise<string[]> {
    const removed = await this.domains.find({ where: { domain: In(names) }, select: { domain: true } });
    await this.domains.delete({ domain: In(names) });
    return removed.map((r) => r.domain);
  }

  @GenerateSql()
  list(): Promise<DomainEntity[]> {
    return this.domains.find({ order: { domain: 'ASC' } });
  }

  /**
   * Rebuilds the new-host rollups from the hosts themselves: after hosts were removed with their
   * domain, or written by something other than scan persistence (seeding, fixtures).
   */
  @GenerateSql()
  rebuildNewHostCounts(): Promise<void> {
    return rebuildNewHostCounts(this.domains.manager);
  }

  /** Recomputes the live counters of the given domains from their hosts (hosts_domain_host_key). */
  @GenerateSql({ params: [[1]] })
  async refreshCounters(domainIds: number[]): Promise<void> {
    await affected(
      this.domains.manager,
      `UPDATE domains d SET total_subdomains = c.total, active_subdomains = c.active
         FROM (SELECT id,
                      (SELECT count(*) FROM hosts h WHERE h.domain_id = x.id)::int AS total,
                      (SELECT count(*) FROM hosts h WHERE h.domain_id = x.id AND h.is_active)::int AS active
                 FROM unnest($1::int[]) AS x(id)) c
        WHERE d.id = c.id`,
      [domainIds],
    );
  }

  /** When the domain was queued for a scan the worker has not started yet (ISO 8601), or null; on the primary. */
  @GenerateSql({ params: [1] })
  async queuedSince(id: number): Promise<string | null> {
    const [row] = await rows<{ at: string | null }>(
      this.domains.manager,
      `SELECT ${isoSql('queued_at')} AS at FROM domains WHERE id = $1`,
      [id],
    );
    return row?.at ?? null;
  }

  /**
   * Asks the worker for a scan at its next tick; a domain already queued keeps its place. A domain whose scan runs
   * stays queued: the claim passes over it until that scan ends, then starts the one asked for, which reads the
   * sources afresh.
   */
  @GenerateSql({ params: [1] })
  async markQueued(id: number): Promise<void> {
    await affected(this.domains.manager, `UPDATE domains SET queued_at = COALESCE(queued_at, now()) WHERE id = $1`, [
      id,
    ]);
  }

  /** Makes every enabled domain due now (index domains_due_idx); returns how many. */
  @GenerateSql()
  markAllEnabledDue(): Promise<number> {
    return affected(this.domains.manager, `UPDATE domains SET next_scan_at = now() WHERE enabled`);
  }
}

/** GET /domains: a page and the count of all that match. Exported for the benchmark's floor. */
export function domainListStatements(
  filters: DomainFilters,
  sort: DomainSort,
  limit: number,
  offset: number,
): { page: Statement; count: Statement } {
  const q = new Params();
  const where: string[] = [];
  if (filters.search) where.push(`d.domain LIKE ${q.p(containsPattern(filters.search.toLowerCase()))} ESCAPE '\\'`);
  if (filters.platform) where.push(`d.platform_slug = ${q.p(filters.platform)}`);
  if (filters.enabled !== undefined) where.push(`d.enabled = ${q.p(filters.enabled)}`);
  return pageWithCount(q, {
    select: DOMAIN_COLUMNS,
    from: 'domains d',
    where,
    orderBy: ORDER[sort],
    limit,
    offset,
    pageFirst: { alias: 'd' },
  });
}

/** GET /domains/{domain}: the domain with its stats, new counts from the per-domain rollups (domainNewPartsSql). */
export function domainDetailStatement(domain: string): Statement {
  const newSince = (moment: string) =>
    `(SELECT coalesce(sum(n), 0)::int FROM (${domainNewPartsSql(moment, 'd.id')}) parts)`;
  return {
    sql: `SELECT ${DOMAIN_COLUMNS},
              json_build_object(
                'total', d.total_subdomains,
                'new_24h', ${newSince("now() - interval '24 hours'")},
                'new_7d', ${newSince("now() - interval '7 days'")},
                'active', d.active_subdomains,
                'inactive', d.total_subdomains - d.active_subdomains
              ) AS stats
         FROM domains d WHERE d.domain = $1`,
    params: [domain],
    prepare: true,
  };
}
