import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * webhooks.fields: what is known of each new host that a webhook's deliveries carry (the fields= vocabulary of
 * the host lists: dns, http, takeover, wildcard, ips, cname, status, title), read when a delivery is sent. Empty:
 * the host and when it was first seen, as before.
 */
export class WebhookFields1766400000000 implements MigrationInterface {
  name = 'WebhookFields1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks ADD COLUMN fields text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks DROP COLUMN fields`);
  }
}
