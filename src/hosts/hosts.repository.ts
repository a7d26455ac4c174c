import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Params, containsPattern, isoSql, rows } from '../database/sql.js';
import type { DomainHostDto, DomainNewHostDto, FeedHostDto, PlatformHostDto, SearchHostDto } from './dto/host.dto.js';
import type { HostFilter } from './dto/host-queries.js';

export interface FeedPosition {
  ts: string;
  id: string;
}

export interface PlatformPosition {
  domain: string;
  host: string;
}

export interface NewFeedOptions {
  since: string;
  limit: number;
  before?: FeedPosition;
  platform?: string;
}

export interface PlatformPageOptions {
  platform: string;
  limit: number;
  after?: PlatformPosition;
  program?: string;
  activeOnly: boolean;
}

export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Hosts first seen since a moment across all programs (or one platform), newest first, on the keyset
 * (first_seen_at, id) so a walk never skips or repeats a row (hosts_new_feed_idx). Asks for limit + 1 rows,
 * so the caller can tell whether another page follows. Exported for the benchmark's floor server.
 */
export function newFeedStatement(opts: NewFeedOptions): Statement {
  const q = new Params();
  const where = [`h.first_seen_at >= ${q.p(opts.since)}::timestamptz`];
  if (opts.before)
    where.push(`(h.first_seen_at, h.id) < (${q.p(opts.before.ts)}::timestamptz, ${q.p(opts.before.id)}::bigint)`);
  if (opts.platform) where.push(`d.platform_slug = ${q.p(opts.platform)}`);
  return {
    sql: `SELECT h.id::text AS id, h.host, d.domain, ${isoSql('h.first_seen_at')} AS first_seen_at
            FROM hosts h JOIN domains d ON d.id = h.domain_id
           WHERE ${where.join(' AND ')}
           ORDER BY h.first_seen_at DESC, h.id DESC
           LIMIT ${q.p(opts.limit + 1)}`,
    params: q.values,
  };
}

/**
 * One page of a platform's hosts, program after program: ordered by (domain, host) and continued after a
 * position (domains_platform_idx for the programs, hosts_domain_host_key within each). Asks for limit + 1
 * rows. Exported for the benchmark's floor server.
 */
export function platformPageStatement(opts: PlatformPageOptions): Statement {
  const q = new Params();
  const where = [`d.platform_slug = ${q.p(opts.platform)}`];
  if (opts.program) where.push(`d.domain LIKE ${q.p(containsPattern(opts.program.toLowerCase()))} ESCAPE '\\'`);
  if (opts.activeOnly) where.push('h.is_active');
  if (opts.after) where.push(`(d.domain, h.host) > (${q.p(opts.after.domain)}, ${q.p(opts.after.host)})`);
  return {
    sql: `SELECT h.host, d.domain, h.is_active
            FROM domains d JOIN hosts h ON h.domain_id = d.id
           WHERE ${where.join(' AND ')}
           ORDER BY d.domain, h.host
           LIMIT ${q.p(opts.limit + 1)}`,
    params: q.values,
  };
}

@Injectable()
export class HostsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A domain's hosts newest first (hosts_domain_feed_idx: domain_id, first_seen_at DESC, id DESC). */
  async listForDomain(domainId: number, filter: HostFilter, search: string | undefined, limit: number, offset: number) {
    const q = new Params();
    const where = [`h.domain_id = ${q.p(domainId)}`];
    if (filter === 'new') where.push(`h.first_seen_at >= now() - interval '24 hours'`);
    if (filter === 'inactive') where.push('NOT h.is_active');
    if (search) where.push(`h.host LIKE ${q.p(containsPattern(search.toLowerCase()))} ESCAPE '\\'`);
    const condition = where.join(' AND ');
    const [page, [count]] = await Promise.all([
      rows<DomainHostDto>(
        this.db,
        `SELECT h.id::text AS id, h.host, ${isoSql('h.first_seen_at')} AS first_seen_at, h.is_active
           FROM hosts h WHERE ${condition}
          ORDER BY h.first_seen_at DESC, h.id DESC
          LIMIT ${q.p(limit)} OFFSET ${q.p(offset)}`,
        q.values,
      ),
      rows<{ total: number }>(
        this.db,
        `SELECT count(*)::int AS total FROM hosts h WHERE ${condition}`,
        q.values.slice(0, -2),
      ),
    ]);
    return { rows: page, total: count.total };
  }

  /** A domain's hosts first seen since a moment, newest first (hosts_domain_feed_idx). */
  newForDomain(domainId: number, since: string, limit: number): Promise<DomainNewHostDto[]> {
    return rows<DomainNewHostDto>(
      this.db,
      `SELECT h.id::text AS id, h.host, ${isoSql('h.first_seen_at')} AS first_seen_at
         FROM hosts h
        WHERE h.domain_id = $1 AND h.first_seen_at >= $2::timestamptz
        ORDER BY h.first_seen_at DESC, h.id DESC
        LIMIT $3`,
      [domainId, since, limit],
    );
  }

  /** The new-host feed, limit + 1 rows at most (see newFeedStatement). */
  newFeed(opts: NewFeedOptions): Promise<FeedHostDto[]> {
    const { sql, params } = newFeedStatement(opts);
    return rows<FeedHostDto>(this.db, sql, params);
  }

  /** Literal substring search over every host (hosts_host_trgm_idx), ordered by host name. */
  search(text: string, limit: number, offset: number): Promise<SearchHostDto[]> {
    return rows<SearchHostDto>(
      this.db,
      `SELECT h.id::text AS id, h.host, d.domain, ${isoSql('h.first_seen_at')} AS first_seen_at, h.is_active
         FROM hosts h JOIN domains d ON d.id = h.domain_id
        WHERE h.host LIKE $1 ESCAPE '\\'
        ORDER BY h.host, h.id
        LIMIT $2 OFFSET $3`,
      [containsPattern(text.toLowerCase()), limit, offset],
    );
  }

  /** One page of the platform bulk feed (see platformPageStatement). */
  platformPage(opts: PlatformPageOptions): Promise<PlatformHostDto[]> {
    const { sql, params } = platformPageStatement(opts);
    return rows<PlatformHostDto>(this.db, sql, params);
  }
}
