import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scans that run in slices across worker ticks: a lease (who runs it, until when), persisted progress, and
 * the names the sources found, staged until the scan commits them to hosts in one set-based statement.
 */
export class ScanProgress1763900000000 implements MigrationInterface {
  name = 'ScanProgress1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE scans ADD COLUMN progress jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`ALTER TABLE scans ADD COLUMN lease_until timestamptz`);
    await q.query(`ALTER TABLE scans ADD COLUMN worker_id text`);
    await q.query(`ALTER TABLE scans ADD COLUMN attempts integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE scans ADD COLUMN dropped_count integer NOT NULL DEFAULT 0`);
    // Running scans a worker may take up: parked between slices (no lease) or left by a crash (lease expired).
    await q.query(`CREATE INDEX scans_claimable_idx ON scans (lease_until NULLS FIRST) WHERE status = 'running'`);
    await q.query(`
      CREATE TABLE scan_names (
        scan_id uuid NOT NULL,
        host text NOT NULL,
        CONSTRAINT scan_names_pkey PRIMARY KEY (scan_id, host),
        CONSTRAINT scan_names_scan_fkey FOREIGN KEY (scan_id) REFERENCES scans (id) ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE scan_names`);
    await q.query(`DROP INDEX scans_claimable_idx`);
    for (const column of ['dropped_count', 'attempts', 'worker_id', 'lease_until', 'progress']) {
      await q.query(`ALTER TABLE scans DROP COLUMN ${column}`);
    }
  }
}
