import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import type { ExclusionKind, ExclusionPattern } from './exclusion-pattern.js';
import { GenerateSql } from '../database/generate-sql.js';
import { HostStore } from '../hosts/store/host-store.js';
import { requireCompiled } from './postgres-regex.js';

/** A program's rule, and how many of the program's root domains it applies to now. */
export interface ProgramExclusionRow {
  id: string;
  program: string;
  kind: ExclusionKind;
  pattern: string;
  domains: number;
  created_at: string;
}

const PROGRAM_COLUMNS = `p.id::text AS id, p.program, p.kind, p.pattern,
  (SELECT count(*) FROM scope_rules r WHERE r.program_rule_id = p.id)::int AS domains,
  ${isoSql('p.created_at')} AS created_at`;

/**
 * The exclusion rules of a platform's programs, each copied to every root domain of its program (scope_rules rows
 * of origin program), and the changes to them, each with its re-evaluation of those domains' hosts.
 */
@Injectable()
export class ProgramRulesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly hosts: HostStore,
  ) {}

  /** How many tracked root domains of a platform belong to a program (named exactly). */
  @GenerateSql({ params: ['hackerone', 'Example'] })
  async domainCount(platform: string, program: string): Promise<number> {
    const [{ n }] = await rows<{ n: number }>(
      this.db,
      `SELECT count(*)::int AS n FROM domains WHERE platform_slug = $1 AND program = $2`,
      [platform, program],
    );
    return n;
  }

  /** The rules of a platform's programs, or of one program (program not null). */
  @GenerateSql(
    { name: 'one program', params: ['hackerone', 'Example'] },
    { name: 'every program', params: ['hackerone', null] },
  )
  list(platform: string, program: string | null): Promise<ProgramExclusionRow[]> {
    return rows<ProgramExclusionRow>(
      this.db,
      `SELECT ${PROGRAM_COLUMNS} FROM program_scope_rules p
        WHERE p.platform_slug = $1 AND ($2::text IS NULL OR p.program = $2) ORDER BY p.program, p.created_at, p.id`,
      [platform, program],
    );
  }

  /**
   * Adds a program's rules not there yet, copies each new one to every root domain of the program, and moves the
   * hosts they name out of scope, in one transaction. Returns every rule given, as kept, and how many hosts moved.
   */
  @GenerateSql({
    params: [
      'hackerone',
      'Example',
      [{ kind: 'host', pattern: 'legacy.example.com', regex: '^legacy\\.example\\.com$' }],
    ],
  })
  add(
    platform: string,
    program: string,
    patterns: ExclusionPattern[],
  ): Promise<{ rules: ProgramExclusionRow[]; moved: number }> {
    return this.hosts.transaction(async (w) => {
      const m = w.manager;
      await requireCompiled(m, patterns);
      const copied = await rows<{ domain_id: number }>(
        m,
        `WITH added AS (
           INSERT INTO program_scope_rules (platform_slug, program, kind, pattern, regex)
           SELECT $1, $2, p.kind, p.pattern, p.regex
             FROM jsonb_to_recordset($3::jsonb) AS p(kind text, pattern text, regex text)
           ON CONFLICT (platform_slug, program, pattern) DO NOTHING
           RETURNING id, kind, pattern, regex
         )
         INSERT INTO scope_rules (domain_id, kind, pattern, regex, origin, program_rule_id)
         SELECT d.id, a.kind, a.pattern, a.regex, 'program', a.id
           FROM added a JOIN domains d ON d.platform_slug = $1 AND d.program = $2
         RETURNING domain_id`,
        [platform, program, JSON.stringify(patterns)],
      );
      const rules = await rows<ProgramExclusionRow>(
        m,
        `SELECT ${PROGRAM_COLUMNS} FROM program_scope_rules p
          WHERE p.platform_slug = $1 AND p.program = $2 AND p.pattern = ANY($3::text[]) ORDER BY p.created_at, p.id`,
        [platform, program, patterns.map((p) => p.pattern)],
      );
      const domainIds = [...new Set(copied.map((r) => r.domain_id))];
      return { rules, moved: await w.applyScope(domainIds) };
    });
  }

  /**
   * Removes program rules of a platform by id or pattern (of one program, when program is not null) with their
   * copies, and brings the hosts no rule names any more back in scope, in one transaction.
   */
  @GenerateSql({ params: ['hackerone', 'Example', ['legacy.example.com']] })
  remove(
    platform: string,
    program: string | null,
    idsOrPatterns: string[],
  ): Promise<{ rules: ProgramExclusionRow[]; moved: number }> {
    return this.hosts.transaction(async (w) => {
      const m = w.manager;
      const match = `p.platform_slug = $1 AND ($2::text IS NULL OR p.program = $2)
                     AND (p.id::text = ANY($3::text[]) OR p.pattern = ANY($3::text[]))`;
      const params = [platform, program, idsOrPatterns];
      const rules = await rows<ProgramExclusionRow>(
        m,
        `SELECT ${PROGRAM_COLUMNS} FROM program_scope_rules p WHERE ${match} ORDER BY p.created_at, p.id`,
        params,
      );
      if (rules.length === 0) return { rules, moved: 0 };
      const domains = await rows<{ domain_id: number }>(
        m,
        `SELECT DISTINCT r.domain_id FROM scope_rules r WHERE r.program_rule_id = ANY($1::bigint[])`,
        [rules.map((r) => r.id)],
      );
      await rows(m, `DELETE FROM program_scope_rules WHERE id = ANY($1::bigint[])`, [rules.map((r) => r.id)]);
      return {
        rules,
        moved: await w.applyScope(domains.map((d) => d.domain_id)),
      };
    });
  }
}
