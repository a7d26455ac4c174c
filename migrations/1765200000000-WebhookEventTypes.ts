import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks subscribe to types of the change feed: `types` lists them, `{host_new}` (new hosts, as before) by
 * default.
 *
 * A webhook with other types gets deliveries of kind host_events, each naming its events in
 * webhook_delivery_events: exactly the events of the webhook's types and scope that were written while it
 * gathered, so none is told twice or missed. They are queued by a statement trigger on host_events, in the
 * transaction that writes the events (a DNS slice, a probe batch, a scan's end), wherever it runs: the four
 * writers need not know of webhooks. One delivery per webhook and domain gathers at a time (the unique partial
 * index; a concurrent writer's insert becomes an update of it); the worker's first claim ends its gathering, and
 * later events start a new one. The worker sends a gathering delivery CT_WEBHOOK_GATHER_SECONDS after it was
 * created, so a burst of changes makes one message.
 */
/**
 * The trigger function that queues a statement's changes for the webhooks of their types and scope, telling only
 * the changes for which `shown` (an expression on the change `e`) holds. Migration ScopeRules replaces it.
 */
export const queueEventDeliveries = (shown: string) => `
  CREATE OR REPLACE FUNCTION queue_event_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    WITH matched AS (
      SELECT w.id AS webhook_id, e.domain_id, e.id AS event_id
        FROM written e JOIN domains d ON d.id = e.domain_id
        JOIN webhooks w ON e.type = ANY (w.types)
                       AND (w.domain_id IS NULL OR w.domain_id = d.id)
                       AND (w.platform_slug IS NULL OR w.platform_slug = d.platform_slug)
       WHERE ${shown}
    ), queued AS (
      INSERT INTO webhook_deliveries (webhook_id, domain_id, kind, gathering, new_count)
      SELECT webhook_id, domain_id, 'host_events', true, count(*) FROM matched GROUP BY webhook_id, domain_id
      ON CONFLICT (webhook_id, domain_id) WHERE gathering
        DO UPDATE SET new_count = webhook_deliveries.new_count + excluded.new_count
      RETURNING id, webhook_id, domain_id
    )
    INSERT INTO webhook_delivery_events (delivery_id, event_id)
    SELECT q.id, m.event_id FROM queued q JOIN matched m USING (webhook_id, domain_id);
    RETURN NULL;
  END $$`;

export class WebhookEventTypes1765200000000 implements MigrationInterface {
  name = 'WebhookEventTypes1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks ADD COLUMN types text[] NOT NULL DEFAULT '{host_new}'`);
    await q.query(`
      ALTER TABLE webhooks ADD CONSTRAINT webhooks_types_check CHECK (
        cardinality(types) > 0
        AND types <@ '{host_new,host_gone,host_back,dns_changed,http_changed,takeover_candidate,wildcard_detected}')`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD COLUMN kind text NOT NULL DEFAULT 'new_hosts',
        ADD COLUMN gathering boolean NOT NULL DEFAULT false,
        ADD CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('new_hosts', 'host_events')),
        DROP CONSTRAINT webhook_deliveries_subject_check,
        ADD CONSTRAINT webhook_deliveries_subject_check CHECK (
          scan_id IS NOT NULL
          OR (kind = 'new_hosts' AND domain_id IS NOT NULL AND window_from IS NOT NULL AND window_to IS NOT NULL
              AND new_count IS NOT NULL)
          OR (kind = 'host_events' AND domain_id IS NOT NULL AND new_count IS NOT NULL))`);
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_gathering_idx ON webhook_deliveries (webhook_id, domain_id)
        WHERE gathering`,
    );
    // No foreign key to host_events: an event removed with its host drops out of the join that reads them.
    await q.query(`
      CREATE TABLE webhook_delivery_events (
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        event_id bigint NOT NULL,
        PRIMARY KEY (delivery_id, event_id)
      )`);
    await q.query(queueEventDeliveries('true'));
    await q.query(`
      CREATE TRIGGER host_events_webhooks AFTER INSERT ON host_events
        REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION queue_event_deliveries()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER host_events_webhooks ON host_events`);
    await q.query(`DROP FUNCTION queue_event_deliveries()`);
    await q.query(`DROP TABLE webhook_delivery_events`);
    await q.query(`DELETE FROM webhook_deliveries WHERE kind = 'host_events'`);
    await q.query(`DROP INDEX webhook_deliveries_gathering_idx`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        DROP CONSTRAINT webhook_deliveries_subject_check,
        ADD CONSTRAINT webhook_deliveries_subject_check CHECK (
          scan_id IS NOT NULL
          OR (domain_id IS NOT NULL AND window_from IS NOT NULL AND window_to IS NOT NULL AND new_count IS NOT NULL)),
        DROP CONSTRAINT webhook_deliveries_kind_check,
        DROP COLUMN gathering, DROP COLUMN kind`);
    await q.query(`ALTER TABLE webhooks DROP CONSTRAINT webhooks_types_check, DROP COLUMN types`);
  }
}
