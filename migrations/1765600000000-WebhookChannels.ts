import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * More channels for webhooks: Microsoft Teams (an Adaptive Card for a Workflows webhook), Telegram (the Bot API's
 * sendMessage, to `chat_id`) and email (over SMTP_URL, to the addresses of a `mailto:` URL).
 */
export class WebhookChannels1765600000000 implements MigrationInterface {
  name = 'WebhookChannels1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks ADD COLUMN chat_id text,
        DROP CONSTRAINT webhooks_format_check,
        ADD CONSTRAINT webhooks_format_check CHECK (
          format IN ('json', 'slack', 'discord', 'teams', 'telegram', 'email')),
        ADD CONSTRAINT webhooks_chat_id_check CHECK ((format = 'telegram') = (chat_id IS NOT NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhooks WHERE format IN ('teams', 'telegram', 'email')`);
    await q.query(`
      ALTER TABLE webhooks DROP CONSTRAINT webhooks_chat_id_check, DROP COLUMN chat_id,
        DROP CONSTRAINT webhooks_format_check,
        ADD CONSTRAINT webhooks_format_check CHECK (format IN ('json', 'slack', 'discord'))`);
  }
}
