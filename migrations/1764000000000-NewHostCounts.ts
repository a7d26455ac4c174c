import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * New hosts per UTC hour per platform, kept by scan persistence, so stats over weeks or months add up a few
 * thousand rows instead of counting hosts. Filled from the hosts already recorded.
 */
export class NewHostCounts1764000000000 implements MigrationInterface {
  name = 'NewHostCounts1764000000000';

  async up(q: QueryRunner): Promise<void> {
    // Filling the rollup reads every host: no request timeout applies to a migration (it runs in its own transaction).
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(`
      CREATE TABLE new_host_counts (
        hour timestamptz NOT NULL,
        platform_slug text NOT NULL,
        n bigint NOT NULL,
        CONSTRAINT new_host_counts_pkey PRIMARY KEY (hour, platform_slug)
      )`);
    await q.query(`
      INSERT INTO new_host_counts (hour, platform_slug, n)
      SELECT date_trunc('hour', h.first_seen_at, 'UTC'), d.platform_slug, count(*)
        FROM hosts h JOIN domains d ON d.id = h.domain_id GROUP BY 1, 2`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE new_host_counts`);
  }
}
