import type { ScopeMode } from '../hosts/model/knowledge-filter.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { affected, isoSql, rows } from '../database/sql.js';
import type { EventType } from '../events/dto/events.query.js';
import type { WebhookFormat } from './channels/index.js';
import type { HostField } from '../hosts/model/host-fields.js';
import { GenerateSql } from '../database/generate-sql.js';

export interface NewWebhook {
  /** The user of the key that made it; null for the operator's (the CLI's). */
  owner: string | null;
  url: string;
  /** Only these platforms' domains; null: all. */
  platforms: string[] | null;
  /** Only these domains; null: all. */
  domainIds: number[] | null;
  scope: string;
  digestMinutes: number | null;
  resolvingOnly: boolean;
  format: WebhookFormat;
  secret: string | null;
  /** The change types it hears of; host_new is the new hosts of scans and the CT log follower. */
  types: EventType[];
  /** Telegram's chat id. */
  chatId: string | null;
  /** What is known of each new host that its deliveries carry (fields=). */
  fields: HostField[];
}

export interface WebhookRow {
  id: string;
  owner: string | null;
  url: string;
  /** null: every platform. */
  platforms: string[] | null;
  /** null: every domain (a removed domain drops out of the list). */
  domains: string[] | null;
  scope: ScopeMode;
  digest_minutes: number | null;
  resolving_only: boolean;
  format: WebhookFormat;
  types: EventType[];
  fields: HostField[];
  has_secret: boolean;
  created_at: string;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  failures: number;
  delivered: number;
  given_up: number;
  /** When the current run of failed attempts began; null after a success. */
  failing_since: string | null;
  /** When the webhook was paused (failing for WEBHOOK_PAUSE_HOURS in a row); null while it is active. */
  paused_at: string | null;
}

/** paused (see PAUSE_AFTER_HOURS, deliveries.repository), failing (its last attempt failed) or active. */
export type WebhookState = 'active' | 'failing' | 'paused';

export function webhookState(w: Pick<WebhookRow, 'paused_at' | 'failing_since'>): WebhookState {
  return w.paused_at ? 'paused' : w.failing_since ? 'failing' : 'active';
}

const WEBHOOK_COLUMNS = `w.id, w.owner, w.url, w.platforms,
  CASE WHEN w.domain_ids IS NOT NULL THEN
    coalesce((SELECT array_agg(d.domain ORDER BY d.domain) FROM domains d WHERE d.id = ANY (w.domain_ids)), '{}')
  END AS domains, w.scope, w.digest_minutes, w.resolving_only, w.format, w.types, w.fields,
  w.secret IS NOT NULL AS has_secret, ${isoSql('w.created_at')} AS created_at,
  ${isoSql('w.last_attempt_at')} AS last_attempt_at, w.last_status, w.last_error, w.failures, w.delivered,
  w.given_up, ${isoSql('w.failing_since')} AS failing_since, ${isoSql('w.paused_at')} AS paused_at`;

/** Registering webhooks: what the API and the CLI make, list and remove. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({
    params: [
      {
        owner: '00000000-0000-4000-8000-000000000002',
        url: 'https://hooks.example.net/in',
        platforms: ['hackerone'],
        domainIds: null,
        scope: 'in',
        digestMinutes: null,
        resolvingOnly: false,
        format: 'json',
        secret: 'a-secret-of-24-characters',
        types: ['host_new', 'dns_changed'],
        chatId: null,
        fields: ['ips', 'title'],
      },
    ],
  })
  async add(webhook: NewWebhook): Promise<string> {
    const [row] = await rows<{ id: string }>(
      this.db,
      `INSERT INTO webhooks (url, platforms, domain_ids, format, secret, types, owner, chat_id, scope, digest_minutes,
                             resolving_only, fields, digest_through)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, CASE WHEN $10::int IS NOT NULL THEN now() END)
       RETURNING id`,
      [
        webhook.url,
        webhook.platforms,
        webhook.domainIds,
        webhook.format,
        webhook.secret,
        webhook.types,
        webhook.owner,
        webhook.chatId,
        webhook.scope,
        webhook.digestMinutes,
        webhook.resolvingOnly,
        webhook.fields,
      ],
    );
    return row.id;
  }

  /** Every webhook (the operator's view), or one owner's (`owner`), oldest first. */
  @GenerateSql(
    { name: 'every webhook', params: [] },
    { name: 'an owner’s', params: ['00000000-0000-4000-8000-000000000002'] },
  )
  list(owner?: string): Promise<WebhookRow[]> {
    return rows<WebhookRow>(
      this.db,
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks w
        WHERE $1::text IS NULL OR w.owner = $1
        ORDER BY w.created_at, w.id`,
      [owner ?? null],
    );
  }

  /**
   * One webhook of an owner (null: the operator's); null when there is none with that id, or it is another
   * owner's.
   */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000', '00000000-0000-4000-8000-000000000002'] })
  async findOwned(id: string, owner: string | null): Promise<WebhookRow | null> {
    const [row] = await rows<WebhookRow>(
      this.db,
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks w WHERE w.id = $1 AND w.owner IS NOT DISTINCT FROM $2`,
      [id, owner],
    );
    return row ?? null;
  }

  /** What a test delivery needs beyond the row: the secret it is signed with, and Telegram's chat id. */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000'] })
  async sendingOf(id: string): Promise<{ secret: string | null; chat_id: string | null }> {
    const [row] = await rows<{ secret: string | null; chat_id: string | null }>(
      this.db,
      `SELECT secret, chat_id FROM webhooks WHERE id = $1`,
      [id],
    );
    return row ?? { secret: null, chat_id: null };
  }

  /** Removes webhooks by id or URL (with their pending deliveries); returns the ids removed. */
  @GenerateSql({ params: ['https://absent.example/in'] })
  async remove(idOrUrl: string): Promise<string[]> {
    const removed = await rows<{ id: string }>(
      this.db,
      `DELETE FROM webhooks WHERE url = $1 OR id::text = lower($1) RETURNING id`,
      [idOrUrl],
    );
    return removed.map((r) => r.id);
  }

  /** Removes an owner's webhook with its deliveries; false when there is none with that id, or it is another user's. */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000', '00000000-0000-4000-8000-000000000002'] })
  async removeOwned(id: string, owner: string): Promise<boolean> {
    return (await affected(this.db, `DELETE FROM webhooks WHERE id = $1 AND owner = $2`, [id, owner])) > 0;
  }
}
