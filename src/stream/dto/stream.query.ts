import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';
import { EnumParam, normalizeTimestamp } from '../../common/validation/query-params.js';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';

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

/** `platform` or `domain`: the hosts a stream or a feed of changes is about (give one, or neither). */
export class HostScopeQuery {
  @EnumParam(PLATFORM_SLUGS, undefined, 'Only hosts of this platform')
  platform?: string;

  @ApiPropertyOptional({ description: 'Only hosts of this tracked root domain', example: 'example.com' })
  @IsOptional()
  @IsRootDomain()
  domain?: string;
}

export class StreamQuery extends HostScopeQuery {
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
