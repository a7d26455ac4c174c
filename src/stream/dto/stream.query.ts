import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { EVENT_ID as CHANGE_ID, EVENT_TYPES, type EventType } from '../../events/dto/events.query.js';
import { EnumListParam, normalizeTimestamp } from '../../common/validation/query-params.js';
import { HostScopeQuery } from '../../hosts/model/host-scope.query.js';
import { UTC_MICROS_PATTERN } from '../../common/validation/name-patterns.js';
import type { HostField } from '../../hosts/model/host-fields.js';
import { FieldsParam } from '../../hosts/model/host-fields.query.js';

/** An event id: the host's first_seen_at (UTC, six fraction digits, as the feeds give it) and its id. */
export const EVENT_ID = new RegExp(`^(${UTC_MICROS_PATTERN})_([0-9]{1,18})$`);

/** An event's id: a place in the hosts keyset, `<first_seen_at>_<id>`. */
export const formatEventId = (at: { ts: string; id: string }) => `${at.ts}_${at.id}`;

/** The keyset position an event id names, or null when it is not one (a real timestamp, a host id). */
export function parseEventId(text: string): { ts: string; id: string } | null {
  const m = EVENT_ID.exec(text);
  if (!m || normalizeTimestamp(m[1]) !== m[1]) return null;
  return { ts: m[1], id: m[2] };
}

/**
 * What last_event_id and Last-Event-ID take, as the document states it: a host's id (`<first_seen_at>_<id>`), or
 * with `types` an id of GET /events (`<ts>_e<id>`, `<ts>_n<id>`). The service tells the two apart by `types`.
 */
export const RESUME_ID_PATTERN = `(?:${EVENT_ID.source})|(?:${CHANGE_ID.source})`;
export const RESUME_ID_DESCRIPTION =
  'Without `types`, the id of a host event (`<first_seen_at>_<id>`, as any host of /subdomains/new gives it ' +
  'too); with `types`, the id of a change of GET /events (`<ts>_e<id>` or `<ts>_n<id>`).';

export class StreamQuery extends HostScopeQuery {
  @EnumListParam(
    EVENT_TYPES,
    `Stream the change feed of GET /events instead of new hosts: these types, a comma list of ${EVENT_TYPES.join(', ')}. ` +
      'Each change is then one event named by its type, with the id and the data of GET /events.',
    'host_new,takeover_candidate',
  )
  types?: EventType[];

  @ApiPropertyOptional({
    description:
      'Resume after this event id, for clients that cannot send the Last-Event-ID header (which wins when both ' +
      `are given). ${RESUME_ID_DESCRIPTION}`,
    examples: {
      host: { summary: 'A host event (no types)', value: '2026-11-21T07:08:00.123456Z_1234' },
      change: { summary: 'A change of GET /events (with types)', value: '2026-11-21T07:08:00.123456Z_e1234' },
    },
    pattern: RESUME_ID_PATTERN,
  })
  @IsOptional()
  @IsString({ message: 'last_event_id must be an event id of this stream (<first_seen_at>_<id>)' })
  last_event_id?: string;

  @FieldsParam(
    'Each host event carries them as extra keys, as known when the event is sent: a host the CT logs named a ' +
      'moment ago is often not resolved yet (dns null), one a scan found is (with RESOLVE=on). Not with types.',
  )
  fields?: HostField[];
}
