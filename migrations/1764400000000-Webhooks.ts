import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks an operator registers (`cli webhooks add`), and their deliveries: one row per webhook and scan with
 * new hosts, written in the scan's own commit and worked off by the worker with retries, so a slow or dead
 * endpoint never holds a scan up and a restart loses no delivery.
 */
export class Webhooks1764400000000 implements MigrationInterface {
  name = 'Webhooks1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        url text NOT NULL,
        platform_slug text,
        domain_id integer,
        format text NOT NULL DEFAULT 'json',
        secret text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_attempt_at timestamptz,
        last_status integer,
        last_error text,
        failures integer NOT NULL DEFAULT 0,
        delivered integer NOT NULL DEFAULT 0,
        given_up integer NOT NULL DEFAULT 0,
        CONSTRAINT webhooks_format_check CHECK (format IN ('json', 'slack', 'discord')),
        CONSTRAINT webhooks_platform_fkey FOREIGN KEY (platform_slug) REFERENCES platforms (slug) ON DELETE CASCADE,
        CONSTRAINT webhooks_domain_fkey FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_id uuid NOT NULL,
        scan_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz,
        last_status integer,
        last_error text,
        done_at timestamptz,
        outcome text,
        CONSTRAINT webhook_deliveries_outcome_check CHECK (outcome IN ('delivered', 'given_up')),
        CONSTRAINT webhook_deliveries_webhook_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE,
        CONSTRAINT webhook_deliveries_scan_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE done_at IS NULL`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id)`);
    await q.query(`CREATE INDEX webhook_deliveries_scan_idx ON webhook_deliveries (scan_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
