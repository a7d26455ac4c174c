import { DEFAULT_HOURS, HoursParam, TimestampParam } from './query-params.js';

/** `hours` and `since`: the look-back window of the new-host feeds and stats. */
export class WindowQuery {
  @HoursParam()
  hours: number = DEFAULT_HOURS;

  @TimestampParam(
    'Start of the window, ISO 8601, read as PostgreSQL reads it (UTC when no offset is given; offsets up to ±15:59; ' +
      'second 60 is the next minute); overrides hours. Echoed in meta.since in UTC with six fraction digits',
  )
  since?: string;
}

/** The window's start as ISO 8601: `since` when given, else now minus `hours`. */
export function windowStart(query: WindowQuery, now = Date.now()): string {
  return query.since ?? new Date(now - query.hours * 3_600_000).toISOString();
}
