import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Substring search of hosts through one trigram index that also knows each host's domain (btree_gin), instead of
 * trigrams alone. A search inside a small domain for a common term ("cdn") intersected the domain's few thousand
 * hosts with every host of the term: 35 ms at ten million hosts, however small the domain. Now the index finds the
 * domain's matches itself (about 1.5 ms); a search over every host uses the same index on its names alone.
 *
 * The planner chooses between that index and walking hosts newest first by the term's estimated share of hosts,
 * which it reads from a sample of names: a sample of 100 bounds put a term held by 1 % of the hosts anywhere
 * between none and 3 %, so the same search was 1 ms or 38 ms depending on the last ANALYZE. Ten times the sample
 * makes the estimate steady.
 */
export class SearchWithinDomain1764700000000 implements MigrationInterface {
  name = 'SearchWithinDomain1764700000000';

  async up(q: QueryRunner): Promise<void> {
    // Building the index reads every host: no request timeout applies to a migration (it runs in its own transaction).
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    await q.query(`CREATE INDEX hosts_domain_host_trgm_idx ON hosts USING gin (domain_id, host gin_trgm_ops)`);
    await q.query(`DROP INDEX hosts_host_trgm_idx`);
    await q.query(`ALTER TABLE hosts ALTER COLUMN host SET STATISTICS 1000`);
    await analyzeHostsIfAny(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(`ALTER TABLE hosts ALTER COLUMN host SET STATISTICS -1`);
    await q.query(`CREATE INDEX hosts_host_trgm_idx ON hosts USING gin (host gin_trgm_ops)`);
    await q.query(`DROP INDEX hosts_domain_host_trgm_idx`);
    await q.query(`DROP EXTENSION IF EXISTS btree_gin`);
    await analyzeHostsIfAny(q);
  }
}

/**
 * New statistics at once where there are hosts. Never on an empty table: analysed empty, it is planned as empty
 * until autovacuum looks again, and the first large scan's check for names already recorded then reads the
 * growing table once per name (a scan of 100,000 new names ran past the statement timeout).
 */
async function analyzeHostsIfAny(q: QueryRunner): Promise<void> {
  const [{ any }] = (await q.query(`SELECT EXISTS (SELECT 1 FROM hosts) AS any`)) as { any: boolean }[];
  if (any) await q.query(`ANALYZE hosts`);
}
