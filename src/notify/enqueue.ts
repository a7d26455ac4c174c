import type { EntityManager } from 'typeorm';
import { affected } from '../database/sql.js';
import { hearsOf, toldTo } from './webhook-sql.js';

/**
 * The webhooks that hear of a domain's new hosts as they come (digests read them when they are made): those of
 * its platform and domain filters that subscribe to host_new. (Other types are queued by the host_events trigger,
 * migration WebhookFilters.)
 */
const matchingWebhooks = (domains: string) => `SELECT w.id, w.scope, d.id AS domain_id
  FROM webhooks w JOIN domains d ON ${domains}
  WHERE ${hearsOf('w', 'd')} AND 'host_new' = ANY (w.types) AND w.digest_minutes IS NULL`;

/**
 * Queues one delivery per matching webhook for a scan that recorded new hosts, inside the scan's own commit: a
 * scan and its deliveries are saved together or not at all.
 */
export async function enqueueDeliveries(m: EntityManager, scanId: string, domainId: number): Promise<void> {
  // A scan whose new hosts are all wildcard echoes or out of scope tells nobody anything (hosts_domain_feed_idx).
  await affected(
    m,
    `INSERT INTO webhook_deliveries (webhook_id, scan_id) SELECT id, $2 FROM (${matchingWebhooks('d.id = $1')}) w
      WHERE EXISTS (SELECT 1 FROM scans s JOIN hosts h ON h.domain_id = s.domain_id AND h.first_seen_at >= s.started_at
                     WHERE s.id = $2 AND ${toldTo('h', 'w')})`,
    [domainId, scanId],
  );
}

/**
 * Tells the matching webhooks of the hosts the CT log follower recorded for these domains in this transaction
 * (first seen at its now(), hosts_domain_feed_idx; those out of scope left out, and nothing queued for a webhook
 * and domain when none is left), inside that transaction, in one statement for every domain of the batch. A
 * delivery of the follower for the same webhook and domain that no worker has tried yet takes them in (its window
 * widens to now, its count grows); otherwise a new one is queued, sent `gatherSeconds` (CT_WEBHOOK_GATHER_SECONDS)
 * later so a burst of pages makes one message. A delivery a worker has taken meanwhile is locked, then no longer
 * untried, so the hosts go to a new one: none is told twice or missed.
 */
export async function enqueueCtDeliveries(m: EntityManager, domainIds: number[], gatherSeconds: number): Promise<void> {
  if (domainIds.length === 0) return;
  await affected(
    m,
    `WITH targets AS (
       SELECT w.id, w.domain_id, (SELECT count(*)::int FROM hosts h
                                   WHERE h.domain_id = w.domain_id AND h.first_seen_at = now() AND ${toldTo('h', 'w')}) AS n
         FROM (${matchingWebhooks('d.id = ANY ($1::int[])')}) w
     ), told AS (
       SELECT id, domain_id, n FROM targets WHERE n > 0
     ), widened AS (
       UPDATE webhook_deliveries x SET window_to = now(), new_count = x.new_count + t.n
         FROM told t
        WHERE x.webhook_id = t.id AND x.domain_id = t.domain_id AND x.scan_id IS NULL
          AND x.kind = 'new_hosts' AND x.attempts = 0 AND x.done_at IS NULL
       RETURNING x.webhook_id, x.domain_id
     )
     INSERT INTO webhook_deliveries (webhook_id, domain_id, window_from, window_to, new_count, next_attempt_at)
     SELECT id, domain_id, now(), now(), n, now() + make_interval(secs => $2) FROM told t
      WHERE NOT EXISTS (SELECT 1 FROM widened x WHERE x.webhook_id = t.id AND x.domain_id = t.domain_id)`,
    [domainIds, gatherSeconds],
  );
}
