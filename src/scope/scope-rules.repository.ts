import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import type { ExclusionKind, ExclusionPattern } from './exclusion-pattern.js';
import { GenerateSql } from '../database/generate-sql.js';
import { HostStore, type HostWriter } from '../hosts/store/host-store.js';
import { compileProblem, requireCompiled } from './postgres-regex.js';

export type ExclusionOrigin = 'manual' | 'import' | 'program';

export interface ExclusionRow {
  id: string;
  kind: ExclusionKind;
  pattern: string;
  origin: ExclusionOrigin;
  /** The program rule a copy stands for (origin program), else null. */
  program_rule: string | null;
  created_at: string;
}

const COLUMNS = `id::text AS id, kind, pattern, origin, program_rule_id::text AS program_rule, ${isoSql('created_at')} AS created_at`;

/** A stored regular-expression rule, a domain's own (domain) or a program's (platform and program). */
export interface StoredRegexRule {
  id: string;
  domain: string | null;
  platform: string | null;
  program: string | null;
  pattern: string;
  regex: string;
}

/**
 * What a rule PostgreSQL cannot compile matches in its stead once the start-up check has found it: nothing (a
 * character before the start of the name), so that every statement matching hosts goes on.
 */
export const MATCHES_NOTHING = '.^';

/**
 * Brings the imported rules of the root domains a scope list names (`domains`, under their platform) to `wanted`,
 * inside the import's transaction: imported rules the list no longer makes go, new ones come (a pattern a manual
 * rule already has stays manual), and the hosts of the domains whose rules changed are re-evaluated, with those of
 * `joined`, domains that joined a program (and got its rules) in the same transaction.
 */
export async function syncImportedRules(
  w: HostWriter,
  domains: { domain: string; platform: string }[],
  wanted: { domain: string; platform: string; kind: ExclusionKind; pattern: string; regex: string }[],
  joined: number[] = [],
): Promise<{ added: number; removed: number; moved: number }> {
  const removed = await rows<{ domain_id: number }>(
    w.manager,
    `DELETE FROM scope_rules r USING domains d, jsonb_to_recordset($1::jsonb) AS x(domain text, platform text)
      WHERE r.origin = 'import' AND d.id = r.domain_id AND d.domain = x.domain AND d.platform_slug = x.platform
        AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS w(domain text, pattern text)
                         WHERE w.domain = d.domain AND w.pattern = r.pattern)
      RETURNING r.domain_id`,
    [JSON.stringify(domains), JSON.stringify(wanted)],
  );
  const added = await rows<{ domain_id: number; pattern: string; regex: string }>(
    w.manager,
    `INSERT INTO scope_rules (domain_id, kind, pattern, regex, origin)
     SELECT d.id, w.kind, w.pattern, w.regex, 'import'
       FROM jsonb_to_recordset($1::jsonb) AS w(domain text, platform text, kind text, pattern text, regex text)
       JOIN domains d ON d.domain = w.domain AND d.platform_slug = w.platform
     ON CONFLICT (domain_id, pattern) WHERE program_rule_id IS NULL DO NOTHING
     RETURNING domain_id, pattern, regex`,
    [JSON.stringify(wanted)],
  );
  // Only the rules new to the database: those kept were compiled when they came.
  await requireCompiled(w.manager, added);
  const changed = [...new Set([...removed, ...added].map((r) => r.domain_id).concat(joined))];
  return { added: added.length, removed: removed.length, moved: await w.applyScope(changed) };
}

/** A domain's exclusion rules, and the changes to them, each with its re-evaluation of the domain's hosts. */
@Injectable()
export class ScopeRulesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly hosts: HostStore,
  ) {}

  @GenerateSql({ params: [1] })
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
  @GenerateSql({
    params: [1, [{ kind: 'wildcard', pattern: '*.staging.example.com', regex: '^[^.]+\\.staging\\.example\\.com$' }]],
  })
  add(domainId: number, patterns: ExclusionPattern[]): Promise<{ rules: ExclusionRow[]; moved: number }> {
    return this.hosts.transaction(async (w) => {
      const m = w.manager;
      await requireCompiled(m, patterns);
      await rows(
        m,
        `INSERT INTO scope_rules (domain_id, kind, pattern, regex)
         SELECT $1, p.kind, p.pattern, p.regex FROM jsonb_to_recordset($2::jsonb) AS p(kind text, pattern text, regex text)
         ON CONFLICT (domain_id, pattern) WHERE program_rule_id IS NULL DO NOTHING`,
        [domainId, JSON.stringify(patterns)],
      );
      const rules = await rows<ExclusionRow>(
        m,
        `SELECT ${COLUMNS} FROM scope_rules
          WHERE domain_id = $1 AND pattern = ANY($2::text[]) AND program_rule_id IS NULL ORDER BY created_at, id`,
        [domainId, patterns.map((p) => p.pattern)],
      );
      return { rules, moved: await w.applyScope([domainId]) };
    });
  }

  /**
   * Removes the domain's own rules (not its program's copies) by id or pattern and brings the hosts no rule names
   * any more back in scope, in one transaction. Returns the rules removed (none when nothing matched) and how many
   * hosts moved.
   */
  @GenerateSql({ params: [1, ['*.staging.example.com']] })
  remove(domainId: number, idsOrPatterns: string[]): Promise<{ rules: ExclusionRow[]; moved: number }> {
    return this.hosts.transaction(async (w) => {
      const m = w.manager;
      const rules = await rows<ExclusionRow>(
        m,
        `DELETE FROM scope_rules
          WHERE domain_id = $1 AND program_rule_id IS NULL AND (id::text = ANY($2::text[]) OR pattern = ANY($2::text[]))
         RETURNING ${COLUMNS}`,
        [domainId, idsOrPatterns],
      );
      return { rules, moved: rules.length > 0 ? await w.applyScope([domainId]) : 0 };
    });
  }

  /** The stored regular-expression rules, of domains (their own) and of programs, for the start-up check. */
  @GenerateSql()
  storedRegexRules(): Promise<StoredRegexRule[]> {
    return rows<StoredRegexRule>(
      this.db,
      `SELECT r.id::text AS id, d.domain, NULL AS platform, NULL AS program, r.pattern, r.regex
         FROM scope_rules r JOIN domains d ON d.id = r.domain_id
        WHERE r.kind = 'regex' AND r.program_rule_id IS NULL
       UNION ALL
       SELECT p.id::text, NULL, p.platform_slug, p.program, p.pattern, p.regex
         FROM program_scope_rules p WHERE p.kind = 'regex'`,
    );
  }

  /**
   * PostgreSQL's reason for refusing a regex, or null when it compiles. Outside any transaction: a refusal ends
   * nothing but this statement.
   */
  @GenerateSql({ params: ['^staging\\d+\\.'] })
  compileProblem(regex: string): Promise<string | null> {
    return compileProblem(this.db, regex);
  }

  /**
   * Makes every regular-expression rule with this regex (domains' own, programs', and the programs' copies) match
   * nothing, in one statement; returns how many rules changed. No host moves: such a rule never matched one.
   */
  @GenerateSql({ params: ['a{256}'] })
  async matchNothing(regex: string): Promise<number> {
    const [{ n }] = await rows<{ n: number }>(
      this.db,
      `WITH programs AS (
         UPDATE program_scope_rules SET regex = $2 WHERE kind = 'regex' AND regex = $1 RETURNING 1
       ), domains AS (
         UPDATE scope_rules SET regex = $2 WHERE kind = 'regex' AND regex = $1 RETURNING 1
       )
       SELECT ((SELECT count(*) FROM programs) + (SELECT count(*) FROM domains))::int AS n`,
      [regex, MATCHES_NOTHING],
    );
    return n;
  }
}
