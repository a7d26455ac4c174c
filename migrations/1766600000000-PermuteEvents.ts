import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event-driven permutations: a root whose hosts the CT follower found waits with domains.permute_due_at (the first
 * such host's time, cleared when an event scan takes it; domains_permute_due_idx), and the event scan (trigger
 * `event`) seeds permutations with the hosts first seen since scans.seeds_from.
 */
export class PermuteEvents1766600000000 implements MigrationInterface {
  name = 'PermuteEvents1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domains ADD COLUMN permute_due_at timestamptz`);
    await q.query(
      `CREATE INDEX domains_permute_due_idx ON domains (permute_due_at) WHERE permute_due_at IS NOT NULL AND enabled`,
    );
    await q.query(`ALTER TABLE scans ADD COLUMN seeds_from timestamptz`);
    await q.query(`ALTER TABLE scans DROP CONSTRAINT scans_trigger_check`);
    await q.query(
      `ALTER TABLE scans ADD CONSTRAINT scans_trigger_check CHECK (trigger IN ('cron', 'api', 'cli', 'event'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM scans WHERE trigger = 'event'`);
    await q.query(`ALTER TABLE scans DROP CONSTRAINT scans_trigger_check`);
    await q.query(`ALTER TABLE scans ADD CONSTRAINT scans_trigger_check CHECK (trigger IN ('cron', 'api', 'cli'))`);
    await q.query(`ALTER TABLE scans DROP COLUMN seeds_from`);
    await q.query(`DROP INDEX domains_permute_due_idx`);
    await q.query(`ALTER TABLE domains DROP COLUMN permute_due_at`);
  }
}
