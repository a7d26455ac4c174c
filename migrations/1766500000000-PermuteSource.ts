import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The permute source: its bit in hosts.sources and scan_names.sources (16, rendered `permute` by host_sources()),
 * the names it tried that did not resolve (permute_tried, its negative cache: a name is not tried again for
 * PERMUTE_RETRY_DAYS), each pattern's tries and hits per root (permute_yields, which steer the next scan's spend),
 * and each scan's counters per source (scans.source_stats: candidates, queries, hits).
 */
export class PermuteSource1766500000000 implements MigrationInterface {
  name = 'PermuteSource1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION host_sources(bits smallint) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT array_remove(ARRAY[
          CASE WHEN bits & 1 <> 0 THEN 'ct' END,
          CASE WHEN bits & 2 <> 0 THEN 'crtsh' END,
          CASE WHEN bits & 4 <> 0 THEN 'dns' END,
          CASE WHEN bits & 8 <> 0 THEN 'command' END,
          CASE WHEN bits & 16 <> 0 THEN 'permute' END], NULL)
      $$`);
    await q.query(`
      CREATE TABLE permute_tried (
        domain_id integer NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
        host text NOT NULL,
        tried_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (domain_id, host)
      )`);
    await q.query(`
      CREATE TABLE permute_yields (
        domain_id integer NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
        pattern text NOT NULL,
        tried bigint NOT NULL DEFAULT 0,
        hits bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (domain_id, pattern)
      )`);
    await q.query(`ALTER TABLE scans ADD COLUMN source_stats jsonb NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE scans DROP COLUMN source_stats`);
    await q.query(`DROP TABLE permute_yields`);
    await q.query(`DROP TABLE permute_tried`);
    await q.query(`
      CREATE OR REPLACE FUNCTION host_sources(bits smallint) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT array_remove(ARRAY[
          CASE WHEN bits & 1 <> 0 THEN 'ct' END,
          CASE WHEN bits & 2 <> 0 THEN 'crtsh' END,
          CASE WHEN bits & 4 <> 0 THEN 'dns' END,
          CASE WHEN bits & 8 <> 0 THEN 'command' END], NULL)
      $$`);
  }
}
