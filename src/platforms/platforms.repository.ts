import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { pageWithCount, Params, type Statement } from '../database/sql.js';
import { jsonPage, jsonRow } from '../database/json-pages.js';
import { newHostPartsSql } from '../database/new-host-counts.js';
import { ReplicaReads } from '../database/db.js';
import { PlatformEntity } from './entities/platform.entity.js';
import { ListCounts } from '../database/list-counts.js';
import { GenerateSql } from '../database/generate-sql.js';
import { PlatformDomainDto, PlatformDto } from './dto/platform.dto.js';

@Injectable()
export class PlatformsRepository {
  /** Read endpoints' statements: on a replica when there are any. */
  private readonly reads: ReplicaReads;

  constructor(
    @InjectRepository(PlatformEntity) private readonly platforms: Repository<PlatformEntity>,
    private readonly counts: ListCounts,
  ) {
    this.reads = new ReplicaReads(platforms.manager.connection);
  }

  @GenerateSql({ params: ['hackerone'] })
  findBySlug(slug: string): Promise<PlatformEntity | null> {
    return this.platforms.findOneBy({ slug });
  }

  @GenerateSql()
  listSlugs(): Promise<string[]> {
    return this.platforms.find({ order: { slug: 'ASC' } }).then((all) => all.map((p) => p.slug));
  }

  /** Why an operator's platform slug is refused, naming the known ones; null when it is a tracked platform. */
  @GenerateSql({ params: ['nosuch'] })
  async unknownSlugProblem(slug: string): Promise<string | null> {
    if (await this.findBySlug(slug)) return null;
    return `unknown platform "${slug}" (one of: ${(await this.listSlugs()).join(', ')})`;
  }

  /**
   * Every platform (or one) with its counts: domain and host totals from the domains' live counters, and
   * hosts first seen in the last 24 hours from the rollups (newHostPartsSql).
   */
  @GenerateSql()
  async withCounts(): Promise<string | Buffer> {
    return (await jsonPage(this.reads, platformsStatement(), Infinity)).json;
  }

  /** One platform with its counts (see withCounts) rendered as JSON; null when there is no such platform. */
  @GenerateSql({ dto: PlatformDto, params: ['hackerone'] })
  withCountsOf(slug: string): Promise<string | null> {
    return jsonRow(this.reads, platformsStatement(slug));
  }

  /** A platform's root domains A→Z (domains_platform_idx) rendered as JSON, and how many it has (ListCounts). */
  @GenerateSql({ dto: PlatformDomainDto, params: ['hackerone', 100, 0] })
  domainsPage(platform: string, limit: number, offset: number) {
    return this.counts.pageAndTotal(this.reads, platformDomainsStatements(platform, limit, offset), limit);
  }
}

/** GET /platforms and /platforms/{slug} (see PlatformsRepository.withCounts). Exported for the benchmark's floor. */
export function platformsStatement(slug?: string): Statement {
  return {
    sql: `WITH fresh AS (
         SELECT platform_slug, sum(n)::int AS n FROM (${newHostPartsSql("now() - interval '24 hours'", { byPlatform: true })}) parts
          ${slug ? 'WHERE platform_slug = $1' : ''} GROUP BY platform_slug
       ), totals AS (
         SELECT platform_slug, count(*)::int AS domains, coalesce(sum(total_subdomains), 0)::bigint AS hosts
           FROM domains ${slug ? 'WHERE platform_slug = $1' : ''} GROUP BY platform_slug
       )
       SELECT p.slug, p.name, coalesce(t.domains, 0) AS domain_count, coalesce(t.hosts, 0)::float8 AS subdomain_count,
              coalesce(f.n, 0) AS new_24h
         FROM platforms p
         LEFT JOIN totals t ON t.platform_slug = p.slug
         LEFT JOIN fresh f ON f.platform_slug = p.slug
        ${slug ? 'WHERE p.slug = $1' : ''}
        ORDER BY p.slug`,
    params: slug ? [slug] : [],
  };
}

/** GET /platforms/{slug}/domains: a page A→Z and the count. Exported for the benchmark's floor. */
export function platformDomainsStatements(
  platform: string,
  limit: number,
  offset: number,
): { page: Statement; count: Statement } {
  const q = new Params();
  return pageWithCount(q, {
    select: 'd.domain, d.program, d.enabled, d.total_subdomains',
    from: 'domains d',
    where: [`d.platform_slug = ${q.p(platform)}`],
    orderBy: 'd.domain',
    limit,
    offset,
  });
}
