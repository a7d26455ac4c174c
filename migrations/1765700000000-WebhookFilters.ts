import type { MigrationInterface, QueryRunner } from 'typeorm';
import { queueEventDeliveries } from './1765200000000-WebhookEventTypes.js';

/** The trigger's test of whether a change `e` is shown before this migration: in scope, or a scope change. */
const SHOWN_BEFORE = `e.type = 'scope_changed' OR NOT EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = e.host_id AND k.out_of_scope)`;

/**
 * Filters and digests per webhook:
 * - `platforms` and `domain_ids`: lists (NULL: all) in place of one platform or one domain. A removed domain's id
 *   stays in the list and matches nothing, so the webhook never hears of more than it asked for.
 * - `scope`: in (the default, as before), out or all; a host's scope change is told whatever the filter.
 * - `digest_minutes`: a digest webhook gets one delivery per window (kind digest, window_from to window_to), only
 *   when something happened in it; `digest_through` is where its last window ended. Its changes are read from
 *   the window when it is sent, so the trigger queues none for it.
 * - `resolving_only` (digests only): new hosts whose DNS answer is resolved when the digest is made.
 */
export class WebhookFilters1765700000000 implements MigrationInterface {
  name = 'WebhookFilters1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks ADD COLUMN platforms text[], ADD COLUMN domain_ids integer[],
        ADD COLUMN scope text NOT NULL DEFAULT 'in' CONSTRAINT webhooks_scope_check CHECK (scope IN ('in', 'out', 'all')),
        ADD COLUMN digest_minutes integer
          CONSTRAINT webhooks_digest_minutes_check CHECK (digest_minutes BETWEEN 1 AND 10080),
        ADD COLUMN digest_through timestamptz,
        ADD COLUMN resolving_only boolean NOT NULL DEFAULT false,
        ADD CONSTRAINT webhooks_resolving_only_check CHECK (NOT resolving_only OR digest_minutes IS NOT NULL)`);
    await q.query(`
      UPDATE webhooks SET platforms = CASE WHEN platform_slug IS NOT NULL THEN ARRAY[platform_slug] END,
                          domain_ids = CASE WHEN domain_id IS NOT NULL THEN ARRAY[domain_id] END`);
    await q.query(`ALTER TABLE webhooks DROP COLUMN platform_slug, DROP COLUMN domain_id`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        DROP CONSTRAINT webhook_deliveries_kind_check,
        ADD CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('new_hosts', 'host_events', 'test', 'digest')),
        DROP CONSTRAINT webhook_deliveries_subject_check,
        ADD CONSTRAINT webhook_deliveries_subject_check CHECK (
          scan_id IS NOT NULL
          OR (kind = 'new_hosts' AND domain_id IS NOT NULL AND window_from IS NOT NULL AND window_to IS NOT NULL
              AND new_count IS NOT NULL)
          OR (kind = 'host_events' AND domain_id IS NOT NULL AND new_count IS NOT NULL)
          OR (kind = 'digest' AND window_from IS NOT NULL AND window_to IS NOT NULL AND new_count IS NOT NULL)
          OR kind = 'test')`);
    await q.query(`
      CREATE OR REPLACE FUNCTION queue_event_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        WITH matched AS (
          SELECT w.id AS webhook_id, e.domain_id, e.id AS event_id
            FROM written e JOIN domains d ON d.id = e.domain_id
            JOIN webhooks w ON e.type = ANY (w.types) AND w.digest_minutes IS NULL
                           AND (w.domain_ids IS NULL OR d.id = ANY (w.domain_ids))
                           AND (w.platforms IS NULL OR d.platform_slug = ANY (w.platforms))
           WHERE e.type = 'scope_changed' OR w.scope = 'all'
              OR (w.scope = 'out') = EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = e.host_id AND k.out_of_scope)
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
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhook_deliveries WHERE kind = 'digest'`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        DROP CONSTRAINT webhook_deliveries_kind_check,
        ADD CONSTRAINT webhook_deliveries_kind_check CHECK (kind IN ('new_hosts', 'host_events', 'test')),
        DROP CONSTRAINT webhook_deliveries_subject_check,
        ADD CONSTRAINT webhook_deliveries_subject_check CHECK (
          scan_id IS NOT NULL
          OR (kind = 'new_hosts' AND domain_id IS NOT NULL AND window_from IS NOT NULL AND window_to IS NOT NULL
              AND new_count IS NOT NULL)
          OR (kind = 'host_events' AND domain_id IS NOT NULL AND new_count IS NOT NULL)
          OR kind = 'test')`);
    await q.query(`
      ALTER TABLE webhooks ADD COLUMN platform_slug text, ADD COLUMN domain_id integer,
        ADD CONSTRAINT webhooks_platform_fkey FOREIGN KEY (platform_slug) REFERENCES platforms (slug) ON DELETE CASCADE,
        ADD CONSTRAINT webhooks_domain_fkey FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE`);
    // A webhook of several platforms or domains keeps the first; one of a removed domain is removed.
    await q.query(`UPDATE webhooks SET platform_slug = platforms[1]`);
    await q.query(`DELETE FROM webhooks w WHERE w.domain_ids IS NOT NULL
                     AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.id = w.domain_ids[1])`);
    await q.query(`UPDATE webhooks SET domain_id = domain_ids[1]`);
    await q.query(`
      ALTER TABLE webhooks DROP COLUMN platforms, DROP COLUMN domain_ids, DROP COLUMN scope,
        DROP COLUMN digest_minutes, DROP COLUMN digest_through, DROP COLUMN resolving_only`);
    await q.query(queueEventDeliveries(SHOWN_BEFORE));
  }
}
