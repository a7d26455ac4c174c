import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A live counter of a domain's active hosts beside total_subdomains, kept by scan persistence, so domain,
 * platform and global stats never count hosts per request.
 */
export class DomainActiveCounter1763800000000 implements MigrationInterface {
  name = 'DomainActiveCounter1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domains ADD COLUMN active_subdomains integer NOT NULL DEFAULT 0`);
    await q.query(`
      UPDATE domains d SET total_subdomains = c.total, active_subdomains = c.active
        FROM (SELECT domain_id, count(*)::int AS total, count(*) FILTER (WHERE is_active)::int AS active
                FROM hosts GROUP BY domain_id) c
       WHERE c.domain_id = d.id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domains DROP COLUMN active_subdomains`);
  }
}
