import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Provenance: which sources have found each host, as bits (ct 1, crtsh 2, dns 4, command 8; see
 * src/hosts/host-sources.ts), OR-ed in each time a source finds it again. Staged scan names carry the bits of the
 * sources that found them until the scan commits. host_sources() renders the bits as the API's array, in that
 * order; an inlinable SQL function, so lists pay a few comparisons per row. Hosts recorded before this version
 * show the sources that find them from now on. hosts_new_feed_idx carries the bits too, so the new-host feeds
 * still read the index alone (see FeedIndexCoversHost); the bits of a host change only when a source finds it
 * for the first time, so its updates stay HOT otherwise.
 */
export class HostSources1764900000000 implements MigrationInterface {
  name = 'HostSources1764900000000';

  async up(q: QueryRunner): Promise<void> {
    // Rebuilding the feed index reads every host: no request timeout applies to a migration.
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(`ALTER TABLE hosts ADD COLUMN sources smallint NOT NULL DEFAULT 0`);
    await q.query(
      `CREATE INDEX hosts_new_feed_cover_idx ON hosts (first_seen_at DESC, id DESC) INCLUDE (domain_id, host, sources)`,
    );
    await q.query(`DROP INDEX hosts_new_feed_idx`);
    await q.query(`ALTER INDEX hosts_new_feed_cover_idx RENAME TO hosts_new_feed_idx`);
    await q.query(`ALTER TABLE scan_names ADD COLUMN sources smallint NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE FUNCTION host_sources(bits smallint) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT array_remove(ARRAY[
          CASE WHEN bits & 1 <> 0 THEN 'ct' END,
          CASE WHEN bits & 2 <> 0 THEN 'crtsh' END,
          CASE WHEN bits & 4 <> 0 THEN 'dns' END,
          CASE WHEN bits & 8 <> 0 THEN 'command' END], NULL)
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(
      `CREATE INDEX hosts_new_feed_cover_idx ON hosts (first_seen_at DESC, id DESC) INCLUDE (domain_id, host)`,
    );
    await q.query(`DROP INDEX hosts_new_feed_idx`);
    await q.query(`ALTER INDEX hosts_new_feed_cover_idx RENAME TO hosts_new_feed_idx`);
    await q.query(`DROP FUNCTION host_sources(smallint)`);
    await q.query(`ALTER TABLE scan_names DROP COLUMN sources`);
    await q.query(`ALTER TABLE hosts DROP COLUMN sources`);
  }
}
