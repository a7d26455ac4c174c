import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { writing } from '../scans/scan-store.repository.js';
import type { ExclusionKind, ExclusionPattern } from './exclusion-pattern.js';

export interface ExclusionRow {
  id: string;
  kind: ExclusionKind;
  pattern: string;
  created_at: string;
}

const COLUMNS = `id::text AS id, kind, pattern, ${isoSql('created_at')} AS created_at`;

/**
 * Re-evaluates a domain's hosts against its rules in one statement, inside the caller's transaction (after
 * writing()): a host some rule names is out of scope (host_intel.out_of_scope), any other in scope. Each host that
 * moves gets a scope_changed event with both sides; the others are left alone. Returns how many moved.
 */
export async function applyScopeRules(m: EntityManager, domainId: number): Promise<number> {
  const [{ moved }] = await rows<{ moved: number }>(
    m,
    `WITH verdict AS (
       SELECT h.id, EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = $1 AND h.host ~ r.regex) AS out,
              coalesce(k.out_of_scope, false) AS was_out
         FROM hosts h LEFT JOIN host_intel k ON k.host_id = h.id
        WHERE h.domain_id = $1
     ), moved AS (
       SELECT id, out FROM verdict WHERE out <> was_out
     ), kept AS (
       INSERT INTO host_intel (host_id, out_of_scope) SELECT id, nullif(out, false) FROM moved
       ON CONFLICT (host_id) DO UPDATE SET out_of_scope = excluded.out_of_scope
       RETURNING 1
     ), events AS (
       INSERT INTO host_events (type, host_id, domain_id, before, after)
       SELECT 'scope_changed', id, $1, jsonb_build_object('in_scope', out), jsonb_build_object('in_scope', NOT out)
         FROM moved
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM kept)::int AS moved, (SELECT count(*) FROM events)::int AS events`,
    [domainId],
  );
  return moved;
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
      return { rules, moved: await applyScopeRules(m, domainId) };
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
      return { rules, moved: rules.length > 0 ? await applyScopeRules(m, domainId) : 0 };
    });
  }
}
