/** The host lists' statements: the feeds, a domain's hosts, search and the platform bulk feed, each on its index. */
import { sourcesSql } from './model/host-sources.js';
import {
  hasKnowledgeFilter,
  type KnowledgeFilter,
  knowledgeConditions,
  onlyHides,
  rootScopeConditions,
  type ScopeMode,
} from './model/knowledge-filter.js';
import { containsPattern, customPlanOnly, isoSql, pageWithCount, Params, type Statement } from '../database/sql.js';
import type { HostFilter } from './dto/host-queries.js';
import type { TrackedDomain } from '../domains/domains.repository.js';
import { type HostField, hostRows, knowledgeColumn, type RowFields, textLine } from './model/host-fields.js';

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
  /** Filters on what is known of each host; wildcard hosts are out unless it says otherwise. */
  knowledge?: KnowledgeFilter;
  /** What is known of each host, as extra keys (fields=). */
  fields?: readonly HostField[];
}

/** The feeds' knowledge conditions: wildcard hosts out unless the filter says otherwise. */
const feedConditions = (q: Params, knowledge: KnowledgeFilter | undefined) =>
  knowledgeConditions(q, { wildcard: 'exclude', ...knowledge });

export interface PlatformPageOptions {
  platform: string;
  limit: number;
  after?: PlatformPosition;
  program?: string;
  activeOnly: boolean;
  /** Out-of-scope hosts: none of them unless asked for (see ScopeMode); all when not given. */
  scope?: ScopeMode;
  /** What is known of each host, as extra keys (json) or as the txt line (see textLines: flat fields only). */
  fields?: readonly HostField[];
  /** Rows carry `line`, the host's txt line with its fields. */
  textLines?: boolean;
}

/**
 * Hosts first seen since a moment across all programs (or one platform), newest first, on the keyset
 * (first_seen_at, id) so a walk never skips or repeats a row (hosts_new_feed_idx). Asks for limit + 1 rows,
 * so the caller can tell whether another page follows. Exported for the benchmark's floor server.
 *
 * One platform's feed checks what is known of a host after its domain is found to be the platform's, not before:
 * the walk reads each host's domain in a LATERAL subquery that gives no row for another platform's (a nested loop
 * whatever the planner thinks of the window; its reads memoized, one per domain the walk meets), and the knowledge
 * conditions are on the walk's rows, a subquery kept whole by OFFSET 0. yeswehack's new hosts of 7 days (2,000 a
 * page, 1M hosts) took 19 ms over 2,000 roots and 70 over 50,000; 36 and 65 when the LATERAL subquery carried the
 * host's id for the check (no memo); a plain join let the planner hash and sort the whole window (hackerone's over
 * 50,000 roots, custom plan; yeswehack's once the prepared statement's generic plan was taken: 987 ms).
 * A filter that asks for hosts by what is known of them keeps the plain join: its conditions may be driven from
 * host_intel (wildcard=only took 66 ms so, 432 walking the feed).
 */
export function newFeedStatement(opts: NewFeedOptions): Statement {
  const q = new Params();
  const walk = [`h.first_seen_at >= ${q.p(opts.since)}::timestamptz`];
  if (opts.before)
    walk.push(`(h.first_seen_at, h.id) < (${q.p(opts.before.ts)}::timestamptz, ${q.p(opts.before.id)}::bigint)`);
  let from = 'hosts h JOIN domains d ON d.id = h.domain_id';
  let domain = 'd';
  let where: string[];
  if (opts.platform && onlyHides(opts.knowledge)) {
    from = `(SELECT h.id, h.host, h.first_seen_at, h.sources, ph.domain
               FROM hosts h
                    CROSS JOIN LATERAL (SELECT d.domain FROM domains d
                                         WHERE d.id = h.domain_id AND d.platform_slug = ${q.p(opts.platform)}
                                        OFFSET 0) ph
              WHERE ${walk.join(' AND ')}
              ORDER BY h.first_seen_at DESC, h.id DESC
             OFFSET 0) h`;
    domain = 'h';
    // None with wildcard=include&scope=all: the walk is the subquery's.
    where = feedConditions(q, opts.knowledge);
  } else {
    if (opts.platform) walk.push(`d.platform_slug = ${q.p(opts.platform)}`);
    where = [...walk, ...feedConditions(q, opts.knowledge)];
  }
  const row: RowFields = { fields: opts.fields, scope: opts.knowledge?.scope };
  const sql = `SELECT h.id::text AS id, h.host, ${domain}.domain, ${isoSql('h.first_seen_at')} AS first_seen_at,
                      ${sourcesSql()}${knowledgeColumn(row)}
                 FROM ${from}
                WHERE ${where.join(' AND ') || 'true'}
                ORDER BY h.first_seen_at DESC, h.id DESC
                LIMIT ${q.p(opts.limit + 1)}`;
  return {
    ...hostRows(sql, ['id', 'host', 'domain', 'first_seen_at', 'sources'], row),
    params: q.values,
    prepare: onlyHides(opts.knowledge),
  };
}

/**
 * One page of a platform's hosts, program after program: ordered by (domain, host) and continued after a
 * position. The platform's domains come from domains_platform_idx, from the position's domain on; each one's hosts
 * from hosts_domain_host_key (index only: it carries id, is_active and sources), after the position's host in the
 * position's domain, at most a page of them, in a LATERAL subquery: the statement walks domain after domain and
 * stops when the page is full, wherever in the platform it is. Asks for limit + 1 rows. Exported for the benchmark's
 * floor server.
 *
 * - Bounded by the (domain, host) pair alone, a page read every domain of the platform before the position's and
 *   filtered them out: 88 ms against 2.7 ms at the 3,000th of a platform's 18,667 domains, so a walk slowed with
 *   every page.
 * - Joined rather than LATERAL, the planner hashed every host of the table once the domains left were few (near
 *   a platform's end): 84 ms a page against 5.5 ms.
 */
export function platformPageStatement(opts: PlatformPageOptions): Statement {
  const q = new Params();
  const scope = rootScopeConditions(opts.scope);
  const domains = [`d.platform_slug = ${q.p(opts.platform)}`, ...scope.roots];
  if (opts.program) domains.push(`d.domain LIKE ${q.p(containsPattern(opts.program.toLowerCase()))} ESCAPE '\\'`);
  const hosts = ['h.domain_id = d.id'];
  if (opts.after) {
    const domain = q.p(opts.after.domain);
    domains.push(`d.domain >= ${domain}`);
    // Every host name is longer than '': in the domains after the position's, every host.
    hosts.push(`h.host > CASE WHEN d.domain = ${domain} THEN ${q.p(opts.after.host)} ELSE '' END`);
  }
  if (opts.activeOnly) hosts.push('h.is_active');
  hosts.push(...scope.hosts);
  const row: RowFields = { fields: opts.fields, scope: opts.scope };
  const extra = opts.textLines ? `, ${textLine(opts.fields ?? [])} AS line` : knowledgeColumn(row);
  const limit = q.p(opts.limit + 1);
  const sql = `SELECT h.host, d.domain, h.is_active, ${sourcesSql()}${extra}
                 FROM domains d
                CROSS JOIN LATERAL (SELECT h.* FROM hosts h WHERE ${hosts.join(' AND ')} ORDER BY h.host LIMIT ${limit}) h
                WHERE ${domains.join(' AND ')}
                ORDER BY d.domain, h.host
                LIMIT ${limit}`;
  if (opts.textLines) return { sql, params: q.values };
  return { ...hostRows(sql, ['host', 'domain', 'is_active', 'sources'], row), params: q.values };
}

export interface DomainHostsOptions {
  /**
   * The domain, looked up first (DomainsService.requireTracked): the statements then filter by its id, which the
   * planner knows the size of. Looked up inside the statement, a domain is planned at the average size: the
   * largest one's page (31,530 hosts at 1M) was read through a bitmap and sorted whole (30 ms) instead of walked
   * newest first until the page is full (0.4 ms), and a search in it intersected all its hosts with every host
   * matching the term.
   */
  domain: TrackedDomain;
  filter: HostFilter;
  search?: string;
  knowledge?: KnowledgeFilter;
  /** What is known of each host, as extra keys (fields=). */
  fields?: readonly HostField[];
  limit: number;
  offset: number;
}

/**
 * How many hosts a domain's list holds, from the domain's live counters, when they tell it: all, active or inactive
 * hosts of a domain without exclusion rules. A window, a search or a knowledge filter (or out-of-scope hosts the
 * list leaves out) needs a count; then null.
 */
export function countedByCounters(opts: DomainHostsOptions): number | null {
  if (opts.filter === 'new' || opts.search || hasKnowledgeFilter(opts.knowledge) || opts.domain.hasScopeRules) {
    return null;
  }
  if (opts.filter === 'active') return opts.domain.active;
  return opts.filter === 'inactive' ? opts.domain.total - opts.domain.active : opts.domain.total;
}

/**
 * One page of a domain's hosts newest first (hosts_domain_feed_idx: domain_id, first_seen_at DESC, id DESC;
 * hosts_domain_inactive_idx for the inactive ones), and the count of all that match. A search finds the domain's
 * matches in hosts_domain_host_trgm_idx (domain and trigrams in one index), or walks a large domain newest first
 * when the term is common.
 */
export function domainHostsStatements(opts: DomainHostsOptions): { page: Statement; count: Statement } {
  const q = new Params();
  const where = [`h.domain_id = ${q.p(opts.domain.id)}`];
  if (opts.filter === 'new') where.push(`h.first_seen_at >= now() - interval '24 hours'`);
  if (opts.filter === 'active') where.push('h.is_active');
  if (opts.filter === 'inactive') where.push('NOT h.is_active');
  if (opts.search) {
    where.push(`h.host LIKE ${q.p(containsPattern(opts.search.toLowerCase()))} ESCAPE '\\'`, customPlanOnly(q));
  }
  where.push(...rootKnowledgeConditions(q, opts.domain, opts.knowledge));
  const statements = pageWithCount(q, {
    select: `h.id, h.host, ${isoSql('h.first_seen_at')} AS first_seen_at, h.is_active, ${sourcesSql()}`,
    from: 'hosts h',
    where,
    orderBy: 'h.first_seen_at DESC, h.id DESC',
    limit: opts.limit,
    offset: opts.offset,
  });
  // What is known of each host is read for the page's rows only, not for the rows its offset skips, and once a
  // row (OFFSET 0 keeps withFields from inlining the read into each field it takes from it).
  const row: RowFields = { fields: opts.fields, scope: opts.knowledge?.scope };
  Object.assign(
    statements.page,
    hostRows(
      `SELECT r.id::text AS id, r.host, r.first_seen_at, r.is_active, r.sources${knowledgeColumn(row, 'r.id')}
         FROM (${statements.page.sql}) r OFFSET 0`,
      ['id', 'host', 'first_seen_at', 'is_active', 'sources'],
      row,
    ),
  );
  statements.page.prepare = statements.count.prepare = onlyHides(opts.knowledge);
  return statements;
}

/**
 * The conditions of a knowledge filter on the hosts of one root domain: a root without exclusion rules has no host
 * out of scope (ruledRoot), so none of its hosts is checked for it, and scope=out finds none.
 */
function rootKnowledgeConditions(
  q: Params,
  domain: Pick<TrackedDomain, 'hasScopeRules'>,
  knowledge: KnowledgeFilter | undefined,
): string[] {
  const scope = knowledge?.scope;
  if (domain.hasScopeRules || scope === undefined) return knowledgeConditions(q, knowledge);
  return [...(scope === 'out' ? ['false'] : []), ...knowledgeConditions(q, { ...knowledge, scope: undefined })];
}

/** A domain's hosts first seen since a moment, newest first (hosts_domain_feed_idx). */
export function domainNewStatement(
  domain: Pick<TrackedDomain, 'id' | 'hasScopeRules'>,
  since: string,
  limit: number,
  knowledge?: KnowledgeFilter,
  fields?: readonly HostField[],
): Statement {
  const q = new Params();
  const where = [
    `h.domain_id = ${q.p(domain.id)}`,
    `h.first_seen_at >= ${q.p(since)}::timestamptz`,
    ...rootKnowledgeConditions(q, domain, { wildcard: 'exclude', ...knowledge }),
  ];
  const row: RowFields = { fields, scope: knowledge?.scope };
  const sql = `SELECT h.id::text AS id, h.host, ${isoSql('h.first_seen_at')} AS first_seen_at,
                      ${sourcesSql()}${knowledgeColumn(row)}
                 FROM hosts h
                WHERE ${where.join(' AND ') || 'true'}
                ORDER BY h.first_seen_at DESC, h.id DESC
                LIMIT ${q.p(limit)}`;
  return {
    ...hostRows(sql, ['id', 'host', 'first_seen_at', 'sources'], row),
    params: q.values,
    prepare: onlyHides(knowledge),
  };
}

/**
 * Literal substring search over every host, newest first: a rare term through the trigrams of
 * hosts_domain_host_trgm_idx, a common one by walking hosts_new_feed_idx until the page is full (the planner
 * picks by the estimate, read from a large sample of names: see migration SearchWithinDomain). Newest first
 * rather than by name: a label like www is spread evenly over time, while in name order all www.* hosts sit
 * together at the end, so a walk in name order could read most of the index before it found a page. The walk
 * reads the index alone: it carries every column a row shows (migration FeedIndexCarriesActive), where reading
 * each host it passed at random grew with the table, and reading the page's hosts again by id cost a quarter of
 * the statement.
 */
export function searchStatement(
  text: string,
  limit: number,
  offset: number,
  knowledge?: KnowledgeFilter,
  fields?: readonly HostField[],
): Statement {
  const q = new Params();
  const where = [`h.host LIKE ${q.p(containsPattern(text.toLowerCase()))} ESCAPE '\\'`, customPlanOnly(q)];
  where.push(...knowledgeConditions(q, knowledge));
  const row: RowFields = { fields, scope: knowledge?.scope };
  const sql = `SELECT h.id::text AS id, h.host, d.domain, ${isoSql('h.first_seen_at')} AS first_seen_at, h.is_active,
                      ${sourcesSql()}${knowledgeColumn(row)}
                 FROM (SELECT h.id, h.domain_id, h.host, h.first_seen_at, h.is_active, h.sources
                         FROM hosts h WHERE ${where.join(' AND ') || 'true'}
                        ORDER BY h.first_seen_at DESC, h.id DESC LIMIT ${q.p(limit)} OFFSET ${q.p(offset)}) h
                 JOIN domains d ON d.id = h.domain_id
                ORDER BY h.first_seen_at DESC, h.id DESC`;
  return {
    ...hostRows(sql, ['id', 'host', 'domain', 'first_seen_at', 'is_active', 'sources'], row),
    params: q.values,
    prepare: onlyHides(knowledge),
  };
}
