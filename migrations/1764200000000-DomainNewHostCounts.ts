import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * New hosts per domain per UTC hour and per UTC day, kept by scan persistence like the per-platform rollup:
 * top domains over any window add up whole days, then whole hours, then at most an hour of hosts, so their cost
 * follows the domains and the days of the window, not the hosts. And a partial index for a domain's inactive
 * hosts.
 */
export class DomainNewHostCounts1764200000000 implements MigrationInterface {
  name = 'DomainNewHostCounts1764200000000';

  async up(q: QueryRunner): Promise<void> {
    // Filling the rollup reads every host: no request timeout applies to a migration (it runs in its own transaction).
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(`
      CREATE TABLE domain_new_host_counts (
        domain_id integer NOT NULL,
        hour timestamptz NOT NULL,
        n bigint NOT NULL,
        CONSTRAINT domain_new_host_counts_pkey PRIMARY KEY (domain_id, hour),
        CONSTRAINT domain_new_host_counts_domain_fkey FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX domain_new_host_counts_hour_idx ON domain_new_host_counts (hour) INCLUDE (domain_id, n)`,
    );
    await q.query(`
      INSERT INTO domain_new_host_counts (domain_id, hour, n)
      SELECT domain_id, date_trunc('hour', first_seen_at, 'UTC'), count(*) FROM hosts GROUP BY 1, 2`);
    await q.query(`
      CREATE TABLE domain_new_host_days (
        domain_id integer NOT NULL,
        day timestamptz NOT NULL,
        n bigint NOT NULL,
        CONSTRAINT domain_new_host_days_pkey PRIMARY KEY (domain_id, day),
        CONSTRAINT domain_new_host_days_domain_fkey FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX domain_new_host_days_day_idx ON domain_new_host_days (day) INCLUDE (domain_id, n)`);
    await q.query(`
      INSERT INTO domain_new_host_days (domain_id, day, n)
      SELECT domain_id, date_trunc('day', hour, 'UTC'), sum(n) FROM domain_new_host_counts GROUP BY 1, 2`);
    // A domain's inactive hosts, newest first, without walking its active ones (few hosts go inactive).
    await q.query(
      `CREATE INDEX hosts_domain_inactive_idx ON hosts (domain_id, first_seen_at DESC, id DESC) WHERE NOT is_active`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX hosts_domain_inactive_idx`);
    await q.query(`DROP TABLE domain_new_host_days`);
    await q.query(`DROP TABLE domain_new_host_counts`);
  }
}
