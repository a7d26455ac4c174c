/** New-host counts from the rollups (stats, domain counters): SQL text only, with no values in it. */

/** A rollup's unit: each of its rows counts the hosts first seen in one UTC day, hour or minute. */
type RollupUnit = 'day' | 'hour' | 'minute';

/**
 * The first whole UTC unit after a moment (an SQL expression): a rollup of that unit counts from it on. Inline,
 * never through a CTE, so the planner sees how short the finer parts before it are and reads them by index.
 */
const rollupEdge = (moment: string, unit: RollupUnit) =>
  `(date_trunc('${unit}', ${moment}, 'UTC') + interval '1 ${unit}')`;

/** One source of new-host counts: `SELECT … FROM …`, its time column, and optionally a filter and a GROUP BY. */
interface CountSource {
  select: string;
  at: string;
  where?: string;
  groupBy?: string;
}

/**
 * Hosts first seen since a moment, as rows to add up (a UNION ALL of like rows): each rollup, coarsest first,
 * from its first whole unit after the moment to where the coarser one before it begins, and the hosts themselves
 * for the rest, less than the finest unit (on hosts_new_feed_idx). The cost follows the rollup rows of the window
 * and at most one finest unit of hosts, never the window's hosts.
 */
function newSinceSql(moment: string, rollups: (CountSource & { unit: RollupUnit })[], hosts: CountSource): string {
  const edges = rollups.map((r) => rollupEdge(moment, r.unit));
  const part = (s: CountSource, from: string, to: string | undefined) =>
    `${s.select} WHERE ${s.where ? `${s.where} AND ` : ''}${s.at} >= ${from}` +
    `${to ? ` AND ${s.at} < ${to}` : ''}${s.groupBy ? ` GROUP BY ${s.groupBy}` : ''}`;
  return [...rollups.map((r, i) => part(r, edges[i], edges[i - 1])), part(hosts, moment, edges.at(-1))].join(
    '\n UNION ALL\n',
  );
}

/**
 * Hosts first seen since a moment, per domain, as (domain_id, n) rows to add up: whole UTC days from the day
 * rollup, the whole hours before the first of them from the hour rollup, and the partial first hour from the
 * hosts themselves. Every domain, or the one `domainId` names (SQL expressions both).
 */
export function domainNewPartsSql(moment: string, domainId?: string): string {
  const where = domainId ? `domain_id = ${domainId}` : undefined;
  return newSinceSql(
    moment,
    [
      { unit: 'day', select: 'SELECT domain_id, n FROM domain_new_host_days', at: 'day', where },
      { unit: 'hour', select: 'SELECT domain_id, n FROM domain_new_host_counts', at: 'hour', where },
    ],
    { select: 'SELECT domain_id, count(*) FROM hosts', at: 'first_seen_at', where, groupBy: 'domain_id' },
  );
}

/**
 * Hosts first seen since a moment, as (platform_slug, at, n) rows to add up, `at` the start of the hour or minute
 * they count (or a host's own first_seen_at): whole UTC hours from new_host_counts, the whole minutes before the
 * first of them from new_host_minutes, and the partial first minute from the hosts themselves, whose platform is
 * looked up only `byPlatform` (NULL otherwise).
 */
export function newHostPartsSql(moment: string, { byPlatform }: { byPlatform: boolean }): string {
  return newSinceSql(
    moment,
    [
      { unit: 'hour', select: 'SELECT platform_slug, hour AS at, n FROM new_host_counts', at: 'hour' },
      { unit: 'minute', select: 'SELECT platform_slug, minute, n FROM new_host_minutes', at: 'minute' },
    ],
    {
      select: byPlatform
        ? 'SELECT d.platform_slug, h.first_seen_at, 1 FROM hosts h JOIN domains d ON d.id = h.domain_id'
        : 'SELECT NULL, h.first_seen_at, 1 FROM hosts h',
      at: 'h.first_seen_at',
    },
  );
}
