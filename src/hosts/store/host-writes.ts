import type { EntityManager } from 'typeorm';
import { rows } from '../../database/sql.js';
import { guessedOnly } from '../model/host-sources.js';

export interface HostCounts {
  newCount: number;
  reactivated: number;
}

/**
 * Takes the transaction's id at once, before any host is written with first_seen_at = now(): live streams hold
 * their events behind open transactions that hold an id (see HORIZON_SQL), so a slow commit is never skipped.
 */
export async function writing(m: EntityManager): Promise<void> {
  await rows(m, `SELECT pg_current_xact_id()`);
}

/** What one domain gained from hosts seen now: hosts added, and known ones active again. */
export interface DomainHostCounts extends HostCounts {
  domainId: number;
}

/**
 * Marks hosts seen now, for any number of domains in one statement: existing ones get last_seen_at, become active
 * again and gain the bits of the sources that found them now, the others are added with first_seen_at = now
 * (hosts_domain_host_key) and counted in the rollups; a new one that an exclusion rule of its domain names is out
 * of scope, and a known one that a source other than guesses now names is no longer a wildcard echo (guessedOnly).
 * `source` is a query yielding `domain_id`, `host` and `sources` (SOURCE_BITS) from `params`. Returns the domains
 * that gained or got back a host. Reached only through HostWriter, inside a HostStore transaction, which has taken
 * its id first.
 */
export async function upsertSeenHosts(
  m: EntityManager,
  source: string,
  params: unknown[],
): Promise<DomainHostCounts[]> {
  return rows<DomainHostCounts>(
    m,
    `WITH input AS (
       SELECT domain_id, host, bit_or(sources)::smallint AS sources FROM (${source}) s GROUP BY domain_id, host
     ), existing AS (
       SELECT h.id, h.is_active, i.sources FROM hosts h JOIN input i ON i.domain_id = h.domain_id AND i.host = h.host
     ), touched AS (
       UPDATE hosts h SET last_seen_at = now(), is_active = true, sources = h.sources | e.sources
         FROM existing e WHERE h.id = e.id
       RETURNING h.id, h.domain_id, e.is_active AS was_active, h.sources
     ), named AS (
       -- A host that a source reading names somewhere has found is no wildcard echo (guessedOnly).
       UPDATE host_intel k SET wildcard = NULL FROM touched t
        WHERE k.host_id = t.id AND k.wildcard AND NOT ${guessedOnly('t.sources')}
     ), back AS (
       INSERT INTO host_events (type, host_id, domain_id)
       SELECT 'host_back', id, domain_id FROM touched WHERE NOT was_active
     ), added AS (
       INSERT INTO hosts (domain_id, host, first_seen_at, last_seen_at, sources)
       SELECT i.domain_id, i.host, now(), now(), i.sources FROM input i
        WHERE NOT EXISTS (SELECT 1 FROM hosts h WHERE h.domain_id = i.domain_id AND h.host = i.host)
       ON CONFLICT (domain_id, host) DO NOTHING
       RETURNING id, domain_id, host
     ), excluded AS (
       -- A new host an exclusion rule of its domain names is recorded out of scope (see migration ScopeRules).
       INSERT INTO host_intel (host_id, out_of_scope)
       SELECT a.id, true FROM added a
        WHERE EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = a.domain_id AND a.host ~ r.regex)
     ), per_domain AS (
       SELECT a.domain_id, d.platform_slug, count(*)::int AS n
         FROM added a JOIN domains d ON d.id = a.domain_id GROUP BY a.domain_id, d.platform_slug
     ), counted AS (
       INSERT INTO new_host_counts (hour, platform_slug, n)
       SELECT date_trunc('hour', now(), 'UTC'), platform_slug, sum(n) FROM per_domain GROUP BY platform_slug
       ON CONFLICT (hour, platform_slug) DO UPDATE SET n = new_host_counts.n + EXCLUDED.n
     ), counted_minute AS (
       INSERT INTO new_host_minutes (minute, platform_slug, n)
       SELECT date_trunc('minute', now(), 'UTC'), platform_slug, sum(n) FROM per_domain GROUP BY platform_slug
       ON CONFLICT (minute, platform_slug) DO UPDATE SET n = new_host_minutes.n + EXCLUDED.n
     ), counted_domain AS (
       INSERT INTO domain_new_host_counts (domain_id, hour, n)
       SELECT domain_id, date_trunc('hour', now(), 'UTC'), n FROM per_domain
       ON CONFLICT (domain_id, hour) DO UPDATE SET n = domain_new_host_counts.n + EXCLUDED.n
     ), counted_day AS (
       INSERT INTO domain_new_host_days (domain_id, day, n)
       SELECT domain_id, date_trunc('day', now(), 'UTC'), n FROM per_domain
       ON CONFLICT (domain_id, day) DO UPDATE SET n = domain_new_host_days.n + EXCLUDED.n
     )
     SELECT domain_id AS "domainId", sum(added)::int AS "newCount", sum(back)::int AS reactivated
       FROM (SELECT domain_id, n AS added, 0 AS back FROM per_domain
             UNION ALL
             SELECT domain_id, 0, 1 FROM touched WHERE NOT was_active) c
      GROUP BY domain_id`,
    params,
  );
}
