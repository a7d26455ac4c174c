import type { Params } from '../../database/sql.js';
import { guessedOnly } from './host-sources.js';

/**
 * Hosts that only guesses (brute force, permutations) found and that resolve to their zone's wildcard answers:
 * out, in, or alone.
 */
export const WILDCARD_MODES = ['exclude', 'include', 'only'] as const;
export type WildcardMode = (typeof WILDCARD_MODES)[number];

/**
 * The conditions of a wildcard mode and a scope mode on host rows aliased `h`, on host_intel_hidden_idx, which
 * holds the few hosts that are wildcard echoes or out of scope. `only` and `out` are semi-joins from it. What the
 * feeds hide by default (wildcard exclude, scope in) is one check, row by row as a feed walks its index newest
 * first (OFFSET 0 keeps PostgreSQL from making it an anti-join): as a join, knowing those hosts few, the planner
 * read a domain's whole window and sorted it rather than stop at the page's limit. The check runs only on hosts
 * that may be hidden: wildcard echoes are hosts guesses alone found (guessedOnly), and where a statement reads each
 * host's root, `ruled` (see ruledRoot) tells whether the root has hosts out of scope at all.
 */
export function hiddenConditions(
  wildcard: WildcardMode | undefined,
  scope: ScopeMode | undefined,
  h = 'h',
  ruled?: string,
): string[] {
  const flagged = (flags: string) => `FROM host_intel k WHERE k.host_id = ${h}.id AND (${flags})`;
  const where: string[] = [];
  if (wildcard === 'only') where.push(`EXISTS (SELECT 1 ${flagged('k.wildcard')})`);
  if (scope === 'out') where.push(`EXISTS (SELECT 1 ${flagged('k.out_of_scope')})`);
  const check = (flags: string, mayHide: string | undefined) => {
    const hidden = `EXISTS (SELECT 1 ${flagged(flags)} OFFSET 0)`;
    return mayHide ? `(NOT (${mayHide}) OR NOT ${hidden})` : `NOT ${hidden}`;
  };
  if (wildcard === 'exclude') {
    const guessed = guessedOnly(`${h}.sources`);
    if (scope !== 'in') where.push(check('k.wildcard', guessed));
    else where.push(check('k.wildcard OR k.out_of_scope', ruled && `${guessed} OR ${ruled}`));
  } else if (scope === 'in' && ruled) {
    // A probe per host of a root with rules (the platform walk): a page's cost, where the hash PostgreSQL may build
    // instead reads every host out of scope of every root.
    where.push(check('k.out_of_scope', ruled));
  } else if (scope === 'in') {
    // Lists and search show wildcard hosts and may walk far (deep offsets, common terms; the bulk feed checks by
    // root instead, rootScopeConditions): an anti-join, which reads the out-of-scope hosts once a statement from the same small index into a
    // hash (a probe per row tripled a common search at offset 2,000 on 1M hosts, 6 → 19 ms), and which the
    // planner knows to pass nearly every host (a hashed NOT IN it took to pass half, and read a platform whole).
    where.push(`NOT EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${h}.id AND k.out_of_scope)`);
  }
  return where;
}

/**
 * The condition of a scope mode on the host whose id is `hostId` (a column), checked row by row (see
 * hiddenConditions): for rows that are not hosts, such as changes.
 */
export function outOfScopeConditions(scope: ScopeMode | undefined, hostId: string): string[] {
  const flagged = `FROM host_intel k WHERE k.host_id = ${hostId} AND k.out_of_scope`;
  if (scope === 'out') return [`EXISTS (SELECT 1 ${flagged})`];
  return scope === 'in' ? [`NOT EXISTS (SELECT 1 ${flagged} OFFSET 0)`] : [];
}

/**
 * Whether root domain `d` (a domains row) has an exclusion rule (scope_rules_domain_idx). Only such a root has hosts
 * out of scope: a rule's hosts are set out of scope in the transaction that adds the rule or the host
 * (applyScopeRules, upsertSeenHosts), and removing a root's last rule moves them back; the domain counters rely on
 * it too. A statement that reads each host's root can so leave the hosts of a root without rules unchecked.
 */
export const ruledRoot = (d = 'd') => `EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = ${d}.id)`;

/**
 * The conditions of a scope mode on root domains `d` and on their hosts `h`, for a statement that walks root after
 * root (see ruledRoot): in scope, a host is looked up in host_intel only where its root has rules (the root's check
 * names no column of `h`, so PostgreSQL reads it once per root); out of scope, only the roots with rules are walked.
 * On the platform walk, 1,001 rows of hackerone without a rule on any of its roots took PostgreSQL 1.5 ms against
 * 2.6 with a probe of host_intel_hidden_idx per host (1M hosts, prepared, median of 30).
 */
export function rootScopeConditions(
  scope: ScopeMode | undefined,
  h = 'h',
  d = 'd',
): { roots: string[]; hosts: string[] } {
  return { roots: scope === 'out' ? [ruledRoot(d)] : [], hosts: hiddenConditions(undefined, scope, h, ruledRoot(d)) };
}

/** The condition of a wildcard mode alone (see hiddenConditions). */
export const wildcardConditions = (mode: WildcardMode | undefined, h = 'h') => hiddenConditions(mode, undefined, h);

/** Hosts in scope (no exclusion rule of their root domain names them), out of it, or both. */
export const SCOPE_MODES = ['in', 'out', 'all'] as const;
export type ScopeMode = (typeof SCOPE_MODES)[number];

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
  /** In-scope hosts unless told otherwise (see ScopeMode). */
  scope?: ScopeMode;
}

/** Whether a filter asks for hosts by what is known of them: their answer, HTTP status, takeover or alias. */
const asksByKnowledge = (f: KnowledgeFilter) =>
  f.resolves !== undefined || f.status !== undefined || f.takeover !== undefined || f.cname !== undefined;

export const hasKnowledgeFilter = (f: KnowledgeFilter | undefined): f is KnowledgeFilter =>
  !!f && (asksByKnowledge(f) || (f.wildcard !== undefined && f.wildcard !== 'include') || f.scope === 'out');

/**
 * Whether a filter only leaves hidden hosts out or shows them (wildcard exclude or include, scope in or all), and
 * asks for no host by what is known of it: its conditions are then checks of the host against the few hidden ones,
 * in one of four texts (see Statement.prepare), none of which a plan could start from.
 */
export const onlyHides = (f: KnowledgeFilter | undefined): boolean =>
  !f || (!asksByKnowledge(f) && f.wildcard !== 'only' && f.scope !== 'out');

/**
 * The conditions of a knowledge filter on host rows aliased `h`, each a primary-key probe of host_intel per host
 * the statement reads.
 */
export function knowledgeConditions(q: Params, f: KnowledgeFilter | undefined, h = 'h'): string[] {
  if (!f) return [];
  const where: string[] = hiddenConditions(f.wildcard, f.scope, h);
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
