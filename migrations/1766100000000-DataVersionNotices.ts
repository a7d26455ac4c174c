import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DATA_VERSION_CHANNEL } from './1765900000000-DataVersion.js';

/** data_version_bump() with the notice's payload: empty (any notice means "look again"), or the row's number. */
const bump = (payload: 'number' | 'empty') => `
  CREATE OR REPLACE FUNCTION data_version_bump() RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    xact text := pg_current_xact_id()::text;
    version bigint;
  BEGIN
    IF current_setting('subdomain_monitor.data_version_xact', true) IS DISTINCT FROM xact THEN
      PERFORM set_config('subdomain_monitor.data_version_xact', xact, true);
      version := nextval('data_version_seq');
      INSERT INTO data_versions (v) VALUES (version);
      PERFORM pg_notify('${DATA_VERSION_CHANNEL}', ${payload === 'number' ? 'version::text' : `''`});
    END IF;
  END $$`;

/**
 * Each write's notice names the row of data_versions it added. A process that has moved its version on a notice
 * can then tell, when it next looks at data_versions, that the rows it finds are those it was told of, and not
 * move a second time for the same write (see DataVersion.look).
 */
export class DataVersionNotices1766100000000 implements MigrationInterface {
  name = 'DataVersionNotices1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(bump('number'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(bump('empty'));
  }
}
