import type { Params } from '../database/sql.js';

/** Hosts that only brute force found and that resolve to their zone's wildcard answers: out, in, or alone. */
export const WILDCARD_MODES = ['exclude', 'include', 'only'] as const;
export type WildcardMode = (typeof WILDCARD_MODES)[number];

/**
 * The condition of a wildcard mode on host rows aliased `h` (none for include), on host_intel_wildcard_idx, which
 * holds the few wildcard hosts. `only` is a semi-join from them. `exclude` is checked row by row as a feed walks
 * its index newest first (OFFSET 0 keeps PostgreSQL from making it an anti-join): as a join, knowing the wildcard
 * hosts few, the planner read a domain's whole window and sorted it rather than stop at the page's limit.
 */
export function wildcardConditions(mode: WildcardMode | undefined, h = 'h'): string[] {
  if (!mode || mode === 'include') return [];
  const flagged = `FROM host_intel k WHERE k.host_id = ${h}.id AND k.wildcard`;
  return [mode === 'only' ? `EXISTS (SELECT 1 ${flagged})` : `NOT EXISTS (SELECT 1 ${flagged} OFFSET 0)`];
}

/** Filters on what is known of each host: the query parameters resolves, status, takeover, cname and wildcard. */
export interface KnowledgeFilter {
  /** true: hosts whose last answer has an address; false: hosts without one (or never resolved). */
  resolves?: boolean;
  /** Hosts whose probe answered this HTTP status. */
  status?: number;
  /** true: takeover candidates only. */
  takeover?: boolean;
  /** Hosts whose CNAME chain has a name that is this suffix or ends with it (`.` + suffix). */
  cname?: string;
  /** Lists and search include wildcard hosts unless told otherwise. */
  wildcard?: WildcardMode;
}

export const hasKnowledgeFilter = (f: KnowledgeFilter | undefined): f is KnowledgeFilter =>
  !!f &&
  (f.resolves !== undefined ||
    f.status !== undefined ||
    f.takeover !== undefined ||
    f.cname !== undefined ||
    (f.wildcard !== undefined && f.wildcard !== 'include'));

/**
 * The conditions of a knowledge filter on host rows aliased `h`, each a primary-key probe of host_intel per host
 * the statement reads.
 */
export function knowledgeConditions(q: Params, f: KnowledgeFilter | undefined, h = 'h'): string[] {
  if (!f) return [];
  const where: string[] = wildcardConditions(f.wildcard, h);
  if (f.resolves !== undefined) {
    where.push(
      `${f.resolves ? '' : 'NOT '}EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${h}.id AND k.dns_status = 'resolved')`,
    );
  }
  if (f.status !== undefined) {
    where.push(`EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${h}.id AND k.http_status = ${q.p(f.status)})`);
  }
  if (f.takeover !== undefined) {
    where.push(
      `${f.takeover ? '' : 'NOT '}EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${h}.id
                                              AND coalesce(k.dns_takeover, k.http_takeover) IS NOT NULL)`,
    );
  }
  if (f.cname !== undefined) {
    const suffix = q.p(f.cname);
    where.push(
      `EXISTS (SELECT 1 FROM host_intel k, unnest(k.cname) c(name)
                WHERE k.host_id = ${h}.id AND (c.name = ${suffix} OR right(c.name, length(${suffix}) + 1) = '.' || ${suffix}))`,
    );
  }
  return where;
}
