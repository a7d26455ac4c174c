import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { writing } from '../scans/scan-store.repository.js';
import type { ExclusionKind, ExclusionPattern } from './exclusion-pattern.js';

export type ExclusionOrigin = 'manual' | 'import';

export interface ExclusionRow {
  id: string;
  kind: ExclusionKind;
  pattern: string;
  origin: ExclusionOrigin;
  created_at: string;
}

const COLUMNS = `id::text AS id, kind, pattern, origin, ${isoSql('created_at')} AS created_at`;

/**
 * Re-evaluates the hosts of some domains against their rules in one statement, inside the caller's transaction
 * (after writing()): a host some rule of its domain names is out of scope (host_intel.out_of_scope), any other in
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

/**
 * Brings the imported rules of the root domains a scope list names (`domains`, under their platform) to `wanted`,
 * inside the import's transaction: imported rules the list no longer makes go, new ones come (a pattern a manual
 * rule already has stays manual), and the hosts of the domains whose rules changed are re-evaluated.
 */
export async function syncImportedRules(
  m: EntityManager,
  domains: { domain: string; platform: string }[],
  wanted: { domain: string; platform: string; kind: ExclusionKind; pattern: string; regex: string }[],
): Promise<{ added: number; removed: number; moved: number }> {
  const removed = await rows<{ domain_id: number }>(
    m,
    `DELETE FROM scope_rules r USING domains d, jsonb_to_recordset($1::jsonb) AS x(domain text, platform text)
      WHERE r.origin = 'import' AND d.id = r.domain_id AND d.domain = x.domain AND d.platform_slug = x.platform
        AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS w(domain text, pattern text)
                         WHERE w.domain = d.domain AND w.pattern = r.pattern)
      RETURNING r.domain_id`,
    [JSON.stringify(domains), JSON.stringify(wanted)],
  );
  const added = await rows<{ domain_id: number }>(
    m,
    `INSERT INTO scope_rules (domain_id, kind, pattern, regex, origin)
     SELECT d.id, w.kind, w.pattern, w.regex, 'import'
       FROM jsonb_to_recordset($1::jsonb) AS w(domain text, platform text, kind text, pattern text, regex text)
       JOIN domains d ON d.domain = w.domain AND d.platform_slug = w.platform
     ON CONFLICT (domain_id, pattern) DO NOTHING
     RETURNING domain_id`,
    [JSON.stringify(wanted)],
  );
  const changed = [...new Set([...removed, ...added].map((r) => r.domain_id))];
  return { added: added.length, removed: removed.length, moved: await applyScopeRules(m, changed) };
}

/** A domain's exclusion rules, and the changes to them, each with its re-evaluation of the domain's hosts. */
@Injectable()
export class ScopeRulesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  list(domainId: number): Promise<ExclusionRow[]> {
    return rows<ExclusionRow>(
      this.db,
      `SELECT ${COLUMNS} FROM scope_rules WHERE domain_id = $1 ORDER BY created_at, id`,
      [domainId],
    );
  }

  /**
   * Adds the rules not there yet (a pattern already there is kept as it is) and moves the hosts they name out of
   * scope, in one transaction. Returns every rule given, as kept, and how many hosts moved.
   */
  add(domainId: number, patterns: ExclusionPattern[]): Promise<{ rules: ExclusionRow[]; moved: number }> {
    return this.db.transaction(async (m) => {
      await writing(m);
      await rows(
        m,
        `INSERT INTO scope_rules (domain_id, kind, pattern, regex)
         SELECT $1, p.kind, p.pattern, p.regex FROM jsonb_to_recordset($2::jsonb) AS p(kind text, pattern text, regex text)
         ON CONFLICT (domain_id, pattern) DO NOTHING`,
        [domainId, JSON.stringify(patterns)],
      );
      const rules = await rows<ExclusionRow>(
        m,
        `SELECT ${COLUMNS} FROM scope_rules WHERE domain_id = $1 AND pattern = ANY($2::text[]) ORDER BY created_at, id`,
        [domainId, patterns.map((p) => p.pattern)],
      );
      return { rules, moved: await applyScopeRules(m, [domainId]) };
    });
  }

  /**
   * Removes rules by id or pattern and brings the hosts no rule names any more back in scope, in one transaction.
   * Returns the rules removed (none when nothing matched) and how many hosts moved.
   */
  remove(domainId: number, idsOrPatterns: string[]): Promise<{ rules: ExclusionRow[]; moved: number }> {
    return this.db.transaction(async (m) => {
      await writing(m);
      const rules = await rows<ExclusionRow>(
        m,
        `DELETE FROM scope_rules WHERE domain_id = $1 AND (id::text = ANY($2::text[]) OR pattern = ANY($2::text[]))
         RETURNING ${COLUMNS}`,
        [domainId, idsOrPatterns],
      );
      return { rules, moved: rules.length > 0 ? await applyScopeRules(m, [domainId]) : 0 };
    });
  }
}
