import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { EVENT_TYPES, type EventType } from '../../events/dto/events.query.js';
import { EnumListParam, normalizeTimestamp } from '../../common/validation/query-params.js';
import { HostScopeQuery } from '../../hosts/model/host-scope.query.js';

/** An event id: the host's first_seen_at (UTC, six fraction digits, as the feeds give it) and its id. */
export const EVENT_ID = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:(\d{2})\.\d{6}Z)_(\d{1,18})$/;

/** An event's id: a place in the hosts keyset, `<first_seen_at>_<id>`. */
export const formatEventId = (at: { ts: string; id: string }) => `${at.ts}_${at.id}`;

/** The keyset position an event id names, or null when it is not one (a real timestamp, a host id). */
export function parseEventId(text: string): { ts: string; id: string } | null {
  const m = EVENT_ID.exec(text);
  if (!m || normalizeTimestamp(m[1]) !== m[1] || +m[2] > 59) return null;
  return { ts: m[1], id: m[3] };
}

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
      'are given). `<first_seen_at>_<id>` of any host of /subdomains/new works too.',
    example: '2026-11-21T07:08:00.123456Z_1234',
    pattern: EVENT_ID.source,
  })
  @IsOptional()
  @IsString({ message: 'last_event_id must be an event id of this stream (<first_seen_at>_<id>)' })
  last_event_id?: string;
}
