import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users who own API keys and manage them on the account page: their sign-in sessions, and the failed sign-ins
 * that slow further attempts. Key names become unique per user rather than across all users.
 */
export class Users1764300000000 implements MigrationInterface {
  name = 'Users1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        name text,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz,
        CONSTRAINT users_email_key UNIQUE (email)
      )`);
    await q.query(`
      CREATE TABLE sessions (
        id_hash text PRIMARY KEY,
        user_id uuid NOT NULL,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CONSTRAINT sessions_user_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX sessions_user_idx ON sessions (user_id)`);
    await q.query(`
      CREATE TABLE sign_in_failures (
        key text PRIMARY KEY,
        failures integer NOT NULL,
        last_failed_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX sign_in_failures_last_failed_idx ON sign_in_failures (last_failed_at)`);
    await q.query(`DROP INDEX api_keys_active_name_idx`);
    await q.query(
      `CREATE UNIQUE INDEX api_keys_user_active_name_idx ON api_keys (user_id, name) WHERE revoked_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX api_keys_user_active_name_idx`);
    // Names were unique across users before: keep the oldest of each active name, revoke the rest.
    await q.query(`
      UPDATE api_keys k SET revoked_at = now()
       WHERE revoked_at IS NULL
         AND EXISTS (SELECT 1 FROM api_keys o WHERE o.revoked_at IS NULL AND o.name = k.name
                        AND (o.created_at, o.id) < (k.created_at, k.id))`);
    await q.query(`CREATE UNIQUE INDEX api_keys_active_name_idx ON api_keys (name) WHERE revoked_at IS NULL`);
    await q.query(`DROP TABLE sign_in_failures`);
    await q.query(`DROP TABLE sessions`);
    await q.query(`DROP TABLE users`);
  }
}
