import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each scan source did each day (UTC) over every root, kept as scans end (source-days.sql.ts), so that GET
 * /scans/sources of every root reads a few rows a day instead of every scan of the window: source_days (successes,
 * failures and the last one, names, seen, new) and source_day_ms (how many scans its slices took each bucket of
 * time, eight buckets an octave, for the percentiles). Filled here from the scans already kept.
 */
export class SourceDays1766700000000 implements MigrationInterface {
  name = 'SourceDays1766700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE source_days (
        day date NOT NULL,
        source text NOT NULL,
        successes integer NOT NULL DEFAULT 0,
        failures integer NOT NULL DEFAULT 0,
        names bigint NOT NULL DEFAULT 0,
        seen bigint NOT NULL DEFAULT 0,
        new bigint NOT NULL DEFAULT 0,
        last_failure text,
        last_failure_at timestamptz,
        PRIMARY KEY (day, source)
      )`);
    await q.query(`
      CREATE TABLE source_day_ms (
        day date NOT NULL,
        source text NOT NULL,
        bucket smallint NOT NULL,
        scans integer NOT NULL,
        PRIMARY KEY (day, source, bucket)
      )`);
    await q.query(`
      INSERT INTO source_days (day, source, successes, names, seen, new)
      SELECT (s.finished_at AT TIME ZONE 'UTC')::date, e.key, count(*), sum(coalesce((e.value ->> 'names')::bigint, 0)),
             sum(coalesce((e.value ->> 'seen')::bigint, 0)), sum(coalesce((e.value ->> 'new')::bigint, 0))
        FROM scans s CROSS JOIN LATERAL jsonb_each(s.source_stats) e
       WHERE s.status = 'success'
       GROUP BY 1, 2`);
    await q.query(`
      INSERT INTO source_days AS d (day, source, failures, last_failure, last_failure_at)
      SELECT (finished_at AT TIME ZONE 'UTC')::date, split_part(error, ':', 1), count(*),
             (array_agg(error ORDER BY finished_at DESC))[1], max(finished_at)
        FROM scans
       WHERE status = 'error' AND split_part(error, ':', 1) IN ('crtsh', 'dns', 'command', 'permute')
       GROUP BY 1, 2
      ON CONFLICT (day, source) DO UPDATE
        SET failures = excluded.failures, last_failure = excluded.last_failure, last_failure_at = excluded.last_failure_at`);
    await q.query(`
      INSERT INTO source_day_ms (day, source, bucket, scans)
      SELECT (s.finished_at AT TIME ZONE 'UTC')::date, e.key, floor(8 * log(2, (e.value ->> 'ms')::numeric + 1)), count(*)
        FROM scans s CROSS JOIN LATERAL jsonb_each(s.source_stats) e
       WHERE s.status = 'success' AND e.value ? 'ms'
       GROUP BY 1, 2, 3`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE source_day_ms`);
    await q.query(`DROP TABLE source_days`);
  }
}
