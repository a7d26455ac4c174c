import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook deliveries for the hosts the CT log follower records. A scan's delivery names its scan; the follower's
 * names a domain and a window of first_seen_at (window_from..window_to) with the count of new hosts in it. While a
 * follower delivery has not been tried, later pages of the same domain widen its window and add to its count, so
 * a burst of certificates becomes one message per webhook.
 */
export class CtWebhookDeliveries1765000000000 implements MigrationInterface {
  name = 'CtWebhookDeliveries1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ALTER COLUMN scan_id DROP NOT NULL`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD COLUMN domain_id integer,
        ADD COLUMN window_from timestamptz,
        ADD COLUMN window_to timestamptz,
        ADD COLUMN new_count integer,
        ADD CONSTRAINT webhook_deliveries_domain_fkey FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE,
        ADD CONSTRAINT webhook_deliveries_subject_check CHECK (
          scan_id IS NOT NULL
          OR (domain_id IS NOT NULL AND window_from IS NOT NULL AND window_to IS NOT NULL AND new_count IS NOT NULL))`);
    await q.query(
      `CREATE INDEX webhook_deliveries_domain_idx ON webhook_deliveries (domain_id) WHERE domain_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhook_deliveries WHERE scan_id IS NULL`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        DROP CONSTRAINT webhook_deliveries_subject_check,
        DROP COLUMN domain_id, DROP COLUMN window_from, DROP COLUMN window_to, DROP COLUMN new_count`);
    await q.query(`ALTER TABLE webhook_deliveries ALTER COLUMN scan_id SET NOT NULL`);
  }
}
