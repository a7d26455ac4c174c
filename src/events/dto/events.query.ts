import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { EnumListParam, LimitParam, normalizeTimestamp } from '../../common/validation/query-params.js';
import { HostScopeQuery } from '../../hosts/model/host-scope.query.js';
import { UTC_MICROS_PATTERN } from '../../common/validation/name-patterns.js';

/** The change types the service records, in the order docs/guide/host-knowledge.md explains them. */
export const EVENT_TYPES = [
  'host_new',
  'host_gone',
  'host_back',
  'dns_changed',
  'http_changed',
  'takeover_candidate',
  'wildcard_detected',
  'scope_changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * An event id: when the change was committed's transaction began (UTC, six fraction digits), then `n` and the
 * host id for a host's arrival (read from hosts), or `e` and the change's id (host_events). Arrivals come before
 * other changes of the same instant, so the ids sort as the feed does.
 */
export const EVENT_ID = new RegExp(`^(${UTC_MICROS_PATTERN})_([ne])([0-9]{1,18})$`);

export interface EventPosition {
  ts: string;
  /** 0: a host's arrival (hosts), 1: another change (host_events). */
  rank: 0 | 1;
  id: string;
}

export const formatEventId = (p: EventPosition) => `${p.ts}_${p.rank === 0 ? 'n' : 'e'}${p.id}`;

export function parseEventId(text: string): EventPosition | null {
  const m = EVENT_ID.exec(text);
  if (!m || normalizeTimestamp(m[1]) !== m[1]) return null;
  return { ts: m[1], rank: m[2] === 'n' ? 0 : 1, id: m[3] };
}

export class EventsQuery extends HostScopeQuery {
  @ApiPropertyOptional({
    description:
      'Continue after this event id (the `id` of the last event you read, or meta.after). Omitted: from the ' +
      'oldest change the service keeps.',
    example: '2026-11-21T07:08:00.123456Z_e1234',
    pattern: EVENT_ID.source,
  })
  @IsOptional()
  @IsString({ message: 'after must be an event id (the id of an event of this feed)' })
  after?: string;

  @LimitParam(100, 1000)
  limit = 100;

  @EnumListParam(
    EVENT_TYPES,
    `Only these types, a comma list of: ${EVENT_TYPES.join(', ')} (default: every type)`,
    'host_new,dns_changed',
  )
  type?: EventType[];
}
