import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * scope_rules_domain_idx: a root domain's exclusion rules, whatever their origin. Every check of a root's rules
 * (does it have any: the platform walk's scope check, the export, a domain's counters; does one name this host: a
 * new host, a rule's re-evaluation) is by domain_id, which neither unique index serves for every rule (each is
 * partial: a root's own rules, or a program's copies). Without it each such check read the whole table, once per
 * root the platform walk passes.
 */
export class ScopeRulesByRoot1767000000000 implements MigrationInterface {
  name = 'ScopeRulesByRoot1767000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX scope_rules_domain_idx ON scope_rules (domain_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX scope_rules_domain_idx`);
  }
}
