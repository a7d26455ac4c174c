import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two read paths that counted hosts now read rollups instead, so their cost does not grow with the hosts:
 * new hosts per UTC hour per domain (top domains over any window), and host order for search (a common
 * term is answered by walking hosts in name order until the page is full, instead of sorting every match).
 */
export class DomainNewHostCounts1764200000000 implements MigrationInterface {
  name = 'DomainNewHostCounts1764200000000';

  async up(q: QueryRunner): Promise<void> {
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
    await q.query(`CREATE INDEX hosts_host_order_idx ON hosts (host, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX hosts_host_order_idx`);
    await q.query(`DROP TABLE domain_new_host_counts`);
  }
}
