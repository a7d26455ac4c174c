import type { MigrationInterface, QueryRunner } from 'typeorm';

const feedIndex = (columns: string) =>
  `CREATE INDEX hosts_new_feed_next_idx ON hosts (first_seen_at DESC, id DESC) INCLUDE (${columns})`;

/**
 * hosts_new_feed_idx carries is_active too, so a search for a common term, which walks it newest first, reads its
 * page from the index in one pass instead of reading each shown host again by id: 0.65 ms less of PostgreSQL's
 * time a search (2.4–2.8 → 1.7–2.0 ms over the benchmark's 12 searches at 1M hosts). Updates that flip is_active
 * were never HOT (hosts_domain_inactive_idx's predicate names it), so carrying it costs writes nothing more. Built
 * under a new name and renamed, as FeedIndexCoversHost.
 */
export class FeedIndexCarriesActive1766200000000 implements MigrationInterface {
  name = 'FeedIndexCarriesActive1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await this.rebuild(q, 'domain_id, host, sources, is_active');
  }

  async down(q: QueryRunner): Promise<void> {
    await this.rebuild(q, 'domain_id, host, sources');
  }

  private async rebuild(q: QueryRunner, columns: string): Promise<void> {
    // Building the index reads every host: no request timeout applies to a migration (it runs in its own transaction).
    await q.query(`SET LOCAL statement_timeout = 0`);
    await q.query(feedIndex(columns));
    await q.query(`DROP INDEX hosts_new_feed_idx`);
    await q.query(`ALTER INDEX hosts_new_feed_next_idx RENAME TO hosts_new_feed_idx`);
  }
}
