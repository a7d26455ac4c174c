import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The channel a committed write is announced on. Its payload was empty (any notice means "look again"); since
 * DataVersionNotices it is the number of the write's row of data_versions.
 */
export const DATA_VERSION_CHANNEL = 'subdomain_monitor_data';

/**
 * The tables whose writes can change what a read answers, and the triggers that record each such write. Tables
 * left out change no answer of the API: scan_names (a scan's staging), sessions and sign_in_failures (the account
 * page's sign-in). Two tables record only some writes: api_keys not last_used_at (moved on every minute a key is
 * used), ct_logs not a log's position (moved on every poll; GET /ct/logs is answered fresh each time).
 */
export const VERSIONED_TABLES = [
  'platforms',
  'domains',
  'hosts',
  'host_intel',
  'host_events',
  'wildcard_zones',
  'scans',
  'new_host_counts',
  'new_host_minutes',
  'domain_new_host_counts',
  'domain_new_host_days',
  'scope_rules',
  'program_scope_rules',
  'webhooks',
  'webhook_deliveries',
  'webhook_delivery_events',
  'users',
];

const EVENTS = [
  ['insert', 'INSERT', 'NEW'],
  ['update', 'UPDATE', 'NEW'],
  ['delete', 'DELETE', 'OLD'],
] as const;

/**
 * A data version: every transaction that writes something a read can answer adds one row to data_versions (its
 * number from data_version_seq) and sends one NOTIFY on DATA_VERSION_CHANNEL, delivered when it commits. Each
 * process learns of a commit from the NOTIFY, and from the rows themselves when it looks every few seconds (a
 * notice can be lost while a LISTEN connection is down). Rows are only ever added, so writers never wait for each
 * other on them; old ones are pruned by the processes.
 *
 * Statement triggers with transition tables record a write once per statement, and only when it touched a row:
 * a worker's UPDATE that finds nothing due moves no version. The row is added once per transaction (a
 * transaction-local setting remembers it).
 */
export class DataVersion1765900000000 implements MigrationInterface {
  name = 'DataVersion1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE data_version_seq`);
    await q.query(`CREATE TABLE data_versions (v bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`
      CREATE FUNCTION data_version_bump() RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        xact text := pg_current_xact_id()::text;
      BEGIN
        IF current_setting('subdomain_monitor.data_version_xact', true) IS DISTINCT FROM xact THEN
          PERFORM set_config('subdomain_monitor.data_version_xact', xact, true);
          INSERT INTO data_versions (v) VALUES (nextval('data_version_seq'));
          PERFORM pg_notify('${DATA_VERSION_CHANNEL}', '');
        END IF;
      END $$`);
    await q.query(`
      CREATE FUNCTION data_version_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM changed) THEN
          PERFORM data_version_bump();
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION data_version_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM data_version_bump();
        RETURN NULL;
      END $$`);
    for (const table of VERSIONED_TABLES) {
      for (const [name, event, side] of EVENTS) {
        await q.query(`
          CREATE TRIGGER ${table}_data_version_${name} AFTER ${event} ON ${table}
            REFERENCING ${side} TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_version_statement()`);
      }
    }
    for (const table of ['api_keys', 'ct_logs']) {
      await q.query(`
        CREATE TRIGGER ${table}_data_version_insert AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_version_statement()`);
      await q.query(`
        CREATE TRIGGER ${table}_data_version_delete AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION data_version_statement()`);
    }
    await q.query(`
      CREATE TRIGGER api_keys_data_version_update AFTER UPDATE ON api_keys FOR EACH ROW
        WHEN ((OLD.name, OLD.scopes, OLD.revoked_at, OLD.user_id) IS DISTINCT FROM (NEW.name, NEW.scopes, NEW.revoked_at, NEW.user_id))
        EXECUTE FUNCTION data_version_row()`);
    await q.query(`
      CREATE TRIGGER ct_logs_data_version_update AFTER UPDATE ON ct_logs FOR EACH ROW
        WHEN (OLD.url IS DISTINCT FROM NEW.url) EXECUTE FUNCTION data_version_row()`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of VERSIONED_TABLES) {
      for (const [name] of EVENTS) await q.query(`DROP TRIGGER ${table}_data_version_${name} ON ${table}`);
    }
    for (const table of ['api_keys', 'ct_logs']) {
      for (const [name] of EVENTS) await q.query(`DROP TRIGGER ${table}_data_version_${name} ON ${table}`);
    }
    await q.query(`DROP FUNCTION data_version_row()`);
    await q.query(`DROP FUNCTION data_version_statement()`);
    await q.query(`DROP FUNCTION data_version_bump()`);
    await q.query(`DROP TABLE data_versions`);
    await q.query(`DROP SEQUENCE data_version_seq`);
  }
}
