import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks their owners manage through the API: each belongs to the user of the key that made it (`owner`; NULL
 * for the operator's, made with the CLI). A webhook whose deliveries have failed for 24 hours in a row
 * (`failing_since`) is paused (`paused_at`): no delivery is attempted until its owner retries one or a test
 * delivery gets through. Each attempt keeps how long it took; a test delivery is a delivery of its own kind, kept
 * with the others. webhook_deliveries_recent_idx reads a webhook's latest deliveries, newest first.
 */
export class OwnedWebhooks1765500000000 implements MigrationInterface {
  name = 'OwnedWebhooks1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks ADD COLUMN owner text, ADD COLUMN failing_since timestamptz,
        ADD COLUMN paused_at timestamptz`);
    await q.query(`CREATE INDEX webhooks_owner_idx ON webhooks (owner, created_at)`);
    await q.query(`
      ALTER TABLE webhook_deliveries ADD COLUMN duration_ms integer, ADD COLUMN last_attempt_at timestamptz,
        DROP CONSTRAINT webhook_deliveries_kind_check,
        ADD CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('new_hosts', 'host_events', 'test')),
        DROP CONSTRAINT webhook_deliveries_subject_check,
        ADD CONSTRAINT webhook_deliveries_subject_check CHECK (
          scan_id IS NOT NULL
          OR (kind = 'new_hosts' AND domain_id IS NOT NULL AND window_from IS NOT NULL AND window_to IS NOT NULL
              AND new_count IS NOT NULL)
          OR (kind = 'host_events' AND domain_id IS NOT NULL AND new_count IS NOT NULL)
          OR kind = 'test')`);
    await q.query(`DROP INDEX webhook_deliveries_webhook_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_recent_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_recent_idx`);
    await q.query(`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id)`);
    await q.query(`DELETE FROM webhook_deliveries WHERE kind = 'test'`);
    await q.query(`
      ALTER TABLE webhook_deliveries DROP COLUMN duration_ms, DROP COLUMN last_attempt_at,
        DROP CONSTRAINT webhook_deliveries_kind_check,
        ADD CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('new_hosts', 'host_events')),
        DROP CONSTRAINT webhook_deliveries_subject_check,
        ADD CONSTRAINT webhook_deliveries_subject_check CHECK (
          scan_id IS NOT NULL
          OR (kind = 'new_hosts' AND domain_id IS NOT NULL AND window_from IS NOT NULL AND window_to IS NOT NULL
              AND new_count IS NOT NULL)
          OR (kind = 'host_events' AND domain_id IS NOT NULL AND new_count IS NOT NULL))`);
    await q.query(`DROP INDEX webhooks_owner_idx`);
    await q.query(`ALTER TABLE webhooks DROP COLUMN owner, DROP COLUMN failing_since, DROP COLUMN paused_at`);
  }
}
