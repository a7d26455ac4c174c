import type { EntityManager } from 'typeorm';
import { rows } from '../../database/sql.js';

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

/**
 * Marks hosts seen now: existing ones get last_seen_at, become active again and gain the bits of the sources
 * that found them now, the others are added with first_seen_at = now (hosts_domain_host_key) and counted in the
 * rollups; a new one that an exclusion rule of the domain names is out of scope. `source` is a query yielding
 * `host` and `sources` (SOURCE_BITS), given $2 ($1 is the domain). Reached only through HostWriter.seen, inside a
 * HostStore transaction, which has taken its id first.
 */
export async function upsertSeenHosts(
  m: EntityManager,
  domainId: number,
  source: string,
  params: unknown[],
): Promise<HostCounts> {
  const [counts] = await rows<HostCounts>(
    m,
    `WITH input AS (SELECT host, bit_or(sources)::smallint AS sources FROM (${source}) s GROUP BY host),
     existing AS (
       SELECT h.id, h.is_active, i.sources FROM hosts h JOIN input i ON i.host = h.host WHERE h.domain_id = $1
     ), touched AS (
       UPDATE hosts h SET last_seen_at = now(), is_active = true, sources = h.sources | e.sources
         FROM existing e WHERE h.id = e.id
       RETURNING h.id, e.is_active AS was_active
     ), back AS (
       INSERT INTO host_events (type, host_id, domain_id) SELECT 'host_back', id, $1 FROM touched WHERE NOT was_active
     ), added AS (
       INSERT INTO hosts (domain_id, host, first_seen_at, last_seen_at, sources)
       SELECT $1, i.host, now(), now(), i.sources FROM input i
        WHERE NOT EXISTS (SELECT 1 FROM hosts h WHERE h.domain_id = $1 AND h.host = i.host)
       ON CONFLICT (domain_id, host) DO NOTHING
       RETURNING id, host
     ), excluded AS (
       -- A new host an exclusion rule of the domain names is recorded out of scope (see migration ScopeRules).
       INSERT INTO host_intel (host_id, out_of_scope)
       SELECT a.id, true FROM added a
        WHERE EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = $1 AND a.host ~ r.regex)
     ), counted AS (
       INSERT INTO new_host_counts (hour, platform_slug, n)
       SELECT date_trunc('hour', now(), 'UTC'), (SELECT platform_slug FROM domains WHERE id = $1), count(*)
         FROM added HAVING count(*) > 0
       ON CONFLICT (hour, platform_slug) DO UPDATE SET n = new_host_counts.n + EXCLUDED.n
     ), counted_minute AS (
       INSERT INTO new_host_minutes (minute, platform_slug, n)
       SELECT date_trunc('minute', now(), 'UTC'), (SELECT platform_slug FROM domains WHERE id = $1), count(*)
         FROM added HAVING count(*) > 0
       ON CONFLICT (minute, platform_slug) DO UPDATE SET n = new_host_minutes.n + EXCLUDED.n
     ), counted_domain AS (
       INSERT INTO domain_new_host_counts (domain_id, hour, n)
       SELECT $1, date_trunc('hour', now(), 'UTC'), count(*) FROM added HAVING count(*) > 0
       ON CONFLICT (domain_id, hour) DO UPDATE SET n = domain_new_host_counts.n + EXCLUDED.n
     ), counted_day AS (
       INSERT INTO domain_new_host_days (domain_id, day, n)
       SELECT $1, date_trunc('day', now(), 'UTC'), count(*) FROM added HAVING count(*) > 0
       ON CONFLICT (domain_id, day) DO UPDATE SET n = domain_new_host_days.n + EXCLUDED.n
     )
     SELECT (SELECT count(*) FROM added)::int AS "newCount",
            (SELECT count(*) FROM touched WHERE NOT was_active)::int AS reactivated`,
    [domainId, ...params],
  );
  return counts;
}
