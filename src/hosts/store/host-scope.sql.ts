import type { EntityManager } from 'typeorm';
import { rows } from '../../database/sql.js';

/**
 * Re-evaluates the hosts of some domains against their rules in one statement, inside a HostStore transaction: a host some rule of its domain names is out of scope (host_intel.out_of_scope), any other in
 * scope. Each host that moves gets a scope_changed event with both sides; the others are left alone. Returns how
 * many moved.
 */
export async function applyScopeRules(m: EntityManager, domainIds: number[]): Promise<number> {
  if (domainIds.length === 0) return 0;
  const [{ moved }] = await rows<{ moved: number }>(
    m,
    `WITH verdict AS (
       SELECT h.id, h.domain_id,
              EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = h.domain_id AND h.host ~ r.regex) AS out,
              coalesce(k.out_of_scope, false) AS was_out
         FROM hosts h LEFT JOIN host_intel k ON k.host_id = h.id
        WHERE h.domain_id = ANY ($1::int[])
     ), moved AS (
       SELECT id, domain_id, out FROM verdict WHERE out <> was_out
     ), kept AS (
       INSERT INTO host_intel (host_id, out_of_scope) SELECT id, nullif(out, false) FROM moved
       ON CONFLICT (host_id) DO UPDATE SET out_of_scope = excluded.out_of_scope
       RETURNING 1
     ), events AS (
       INSERT INTO host_events (type, host_id, domain_id, before, after)
       SELECT 'scope_changed', id, domain_id, jsonb_build_object('in_scope', out), jsonb_build_object('in_scope', NOT out)
         FROM moved
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM kept)::int AS moved, (SELECT count(*) FROM events)::int AS events`,
    [domainIds],
  );
  return moved;
}
