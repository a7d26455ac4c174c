import type { EntityManager } from 'typeorm';
import { SCAN_SOURCE_NAMES } from '../config/environment.js';
import { affected } from '../database/sql.js';

// SCAN_SOURCE_NAMES: the scan sources, whose names head a scan's error (`crtsh: HTTP 502 …`; SourceError).

/** Buckets of a source's time a scan: eight an octave of milliseconds (each 9 % wider than the one before). */
export const MS_BUCKETS_AN_OCTAVE = 8;
/** A bucket of milliseconds, in SQL: floor(8 log2(ms + 1)). */
export const msBucketSql = (ms: string) => `floor(${MS_BUCKETS_AN_OCTAVE} * log(2, (${ms})::numeric + 1))`;
/** The time a bucket stands for (its geometric middle), in SQL. */
export const bucketMsSql = (bucket: string) => `round(2 ^ ((${bucket} + 0.5) / ${MS_BUCKETS_AN_OCTAVE}) - 1)`;

/**
 * A scan that succeeded, in its day's roll-up of each source it ran (source_days, source_day_ms; migration
 * SourceDays): one success, its names, seen and new, and its time's bucket. Sent last in the scan's commit, so the
 * day's rows every finishing scan updates are locked for as short a time as can be.
 */
export async function rollUpSuccess(m: EntityManager, scanId: string): Promise<void> {
  await affected(
    m,
    `WITH ran AS (
       SELECT e.key AS source, coalesce((e.value ->> 'names')::bigint, 0) AS names,
              coalesce((e.value ->> 'seen')::bigint, 0) AS seen, coalesce((e.value ->> 'new')::bigint, 0) AS new,
              (e.value ->> 'ms')::bigint AS ms
         FROM scans s CROSS JOIN LATERAL jsonb_each(s.source_stats) e
        WHERE s.id = $1
     ), days AS (
       INSERT INTO source_days AS d (day, source, successes, names, seen, new)
       SELECT (now() AT TIME ZONE 'UTC')::date, source, 1, names, seen, new FROM ran
       ON CONFLICT (day, source) DO UPDATE
         SET successes = d.successes + 1, names = d.names + excluded.names, seen = d.seen + excluded.seen,
             new = d.new + excluded.new
     )
     INSERT INTO source_day_ms AS b (day, source, bucket, scans)
     SELECT (now() AT TIME ZONE 'UTC')::date, source, ${msBucketSql('ms')}, 1 FROM ran WHERE ms IS NOT NULL
     ON CONFLICT (day, source, bucket) DO UPDATE SET scans = b.scans + 1`,
    [scanId],
  );
}

/** A scan that ended in a source's error, in that source's roll-up of the day: one failure, and the last message. */
export async function rollUpFailure(m: EntityManager, message: string): Promise<void> {
  await affected(
    m,
    `INSERT INTO source_days AS d (day, source, failures, last_failure, last_failure_at)
     SELECT (now() AT TIME ZONE 'UTC')::date, split_part($1, ':', 1), 1, $1, now()
      WHERE split_part($1, ':', 1) = ANY ($2::text[])
     ON CONFLICT (day, source) DO UPDATE
       SET failures = d.failures + 1, last_failure = excluded.last_failure, last_failure_at = excluded.last_failure_at`,
    [message, SCAN_SOURCE_NAMES],
  );
}
