import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where an exclusion rule comes from: `manual` (the API and the CLI) or `import` (the out-of-scope entries of a
 * scope list `domains import` read). A later import replaces the imported rules of the root domains its file
 * lists and never touches the manual ones.
 */
export class ImportedScopeRules1765400000000 implements MigrationInterface {
  name = 'ImportedScopeRules1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE scope_rules ADD COLUMN origin text NOT NULL DEFAULT 'manual'
        CONSTRAINT scope_rules_origin_check CHECK (origin IN ('manual', 'import'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE scope_rules DROP COLUMN origin`);
  }
}
