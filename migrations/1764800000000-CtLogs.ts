import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Certificate Transparency logs the worker follows (CT_LOGS): where each stands, what it gave, its last error,
 * and which worker holds it. `position` is the index of the next entry to read, saved in the same transaction as
 * the hosts the entries before it yielded; NULL until the log is first read (CT_START decides where it starts).
 */
export class CtLogs1764800000000 implements MigrationInterface {
  name = 'CtLogs1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ct_logs (
        id serial PRIMARY KEY,
        url text NOT NULL,
        kind text NOT NULL DEFAULT 'rfc6962',
        tree_size bigint,
        position bigint,
        entries_total bigint NOT NULL DEFAULT 0,
        hosts_total bigint NOT NULL DEFAULT 0,
        last_polled_at timestamptz,
        last_error text,
        last_error_at timestamptz,
        worker_id text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ct_logs_url_key UNIQUE (url),
        CONSTRAINT ct_logs_kind_check CHECK (kind IN ('rfc6962', 'static'))
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ct_logs`);
  }
}
