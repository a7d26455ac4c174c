import type { DataSource, EntityManager } from 'typeorm';
import { rows } from '../../database/sql.js';

/** What random labels under a zone resolved to: no addresses is no wildcard. */
export interface ZoneAnswer {
  zone: string;
  answers: string[];
  /** A host under the zone, seen in this slice: the change names it. */
  revealedBy: string | null;
}

/** The zone a host sits in: its name without the first label. */
export const zoneOf = (host: string) => host.slice(host.indexOf('.') + 1);

/**
 * The zones of these that were not checked since `since` (the scan's start): each zone is asked once a scan
 * (wildcard_zones' primary key).
 */
export async function zonesToCheck(
  m: DataSource | EntityManager,
  domainId: number,
  zones: string[],
  since: string,
): Promise<string[]> {
  const found = await rows<{ zone: string }>(
    m,
    `SELECT z.zone FROM unnest($2::text[]) z(zone)
      WHERE NOT EXISTS (SELECT 1 FROM wildcard_zones w
                         WHERE w.domain_id = $1 AND w.zone = z.zone AND w.checked_at >= $3::timestamptz)`,
    [domainId, zones, since],
  );
  return found.map((r) => r.zone);
}

/**
 * Keeps what random labels under each zone resolved to, inside the caller's transaction. A zone that answers
 * where it did not before (or was never checked) raises wildcard_detected, named after a host under it that this
 * slice saw, with the zone (`*.zone`) and its answers. Returns how many were raised.
 */
export async function recordZones(m: EntityManager, domainId: number, zones: ZoneAnswer[]): Promise<number> {
  if (zones.length === 0) return 0;
  const [{ raised }] = await rows<{ raised: number }>(
    m,
    `WITH input AS (
       SELECT i.zone, i.answers, i."revealedBy" AS revealed_by
         FROM jsonb_to_recordset($2::jsonb) AS i(zone text, answers text[], "revealedBy" text)
     ), detected AS (
       SELECT i.* FROM input i LEFT JOIN wildcard_zones w ON w.domain_id = $1 AND w.zone = i.zone
        WHERE cardinality(i.answers) > 0 AND coalesce(cardinality(w.answers), 0) = 0
     ), events AS (
       INSERT INTO host_events (type, host_id, domain_id, after)
       SELECT 'wildcard_detected', h.id, $1, jsonb_build_object('zone', '*.' || d.zone, 'answers', to_jsonb(d.answers))
         FROM detected d JOIN hosts h ON h.domain_id = $1 AND h.host = d.revealed_by
       RETURNING 1
     ), kept AS (
       INSERT INTO wildcard_zones (domain_id, zone, answers)
       SELECT $1, zone, answers FROM input
       ON CONFLICT (domain_id, zone) DO UPDATE SET answers = excluded.answers, checked_at = now()
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM events)::int AS raised, (SELECT count(*) FROM kept)::int AS kept`,
    [domainId, JSON.stringify(zones)],
  );
  return raised;
}
