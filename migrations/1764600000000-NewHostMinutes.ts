import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * New hosts per UTC minute per platform, kept by scan persistence beside the hourly counts. A window that ends
 * now starts inside an hour; that hour's hosts were counted one by one (about 14,000 of them at ten million hosts
 * over a month), and now add up from at most 60 rows per platform. Filled from the hosts already recorded.
 */
export class NewHostMinutes1764600000000 implements MigrationInterface {
  name = 'NewHostMinutes1764600000000';

  async up(q: QueryRunner): Promise<void> {
    // Filling the rollup reads every host: no request timeout applies to a migration (it runs in its own transaction).
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(`
      CREATE TABLE new_host_minutes (
        minute timestamptz NOT NULL,
        platform_slug text NOT NULL,
        n bigint NOT NULL,
        CONSTRAINT new_host_minutes_pkey PRIMARY KEY (minute, platform_slug)
      )`);
    await q.query(`
      INSERT INTO new_host_minutes (minute, platform_slug, n)
      SELECT date_trunc('minute', h.first_seen_at, 'UTC'), d.platform_slug, count(*)
        FROM hosts h JOIN domains d ON d.id = h.domain_id GROUP BY 1, 2`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE new_host_minutes`);
  }
}
