import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import {
  DNS_DESCRIPTION,
  DnsAnswerDto,
  HttpChangeDto,
  ScopeChangeDto,
  TakeoverDto,
  WildcardZoneDto,
} from '../../hosts/model/knowledge.dto.js';
import type { EventRow } from '../events.repository.js';
import { EVENT_TYPES, type EventType, formatEventId } from './events.query.js';

@ApiExtraModels(DnsAnswerDto, HttpChangeDto, TakeoverDto, WildcardZoneDto, ScopeChangeDto)
export class HostEventDto {
  @ApiProperty({
    description: 'Event id: pass it as `after` to read on from here',
    example: '2026-11-21T07:08:00.123456Z_e1234',
  })
  id: string;

  @ApiProperty({ enum: EVENT_TYPES }) type: EventType;
  @ApiProperty({ example: 'api.example.com' }) host: string;
  @ApiProperty({ example: 'example.com' }) domain: string;
  @ApiProperty({ example: 'hackerone' }) platform: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the change was recorded (UTC)' })
  at: string;

  @ApiPropertyOptional({
    oneOf: [
      { $ref: getSchemaPath(DnsAnswerDto) },
      { $ref: getSchemaPath(HttpChangeDto) },
      { $ref: getSchemaPath(ScopeChangeDto) },
    ],
    nullable: true,
    description:
      `What was kept before the change: dns_changed, ${DNS_DESCRIPTION}; http_changed, whether anything ` +
      'answered, its scheme, port, status and title; scope_changed, whether it was in scope; null for the other types',
  })
  before: DnsAnswerDto | HttpChangeDto | ScopeChangeDto | null;

  @ApiPropertyOptional({
    oneOf: [
      { $ref: getSchemaPath(DnsAnswerDto) },
      { $ref: getSchemaPath(HttpChangeDto) },
      { $ref: getSchemaPath(TakeoverDto) },
      { $ref: getSchemaPath(WildcardZoneDto) },
      { $ref: getSchemaPath(ScopeChangeDto) },
    ],
    nullable: true,
    description:
      'What is kept after the change: dns_changed, the new DNS answer; http_changed, the new probe; ' +
      "takeover_candidate, the service, the list's verdict and the evidence; wildcard_detected, the zone " +
      '(*.zone) and what its random labels resolve to; scope_changed, whether it is in scope now; null for the ' +
      'other types',
  })
  after: DnsAnswerDto | HttpChangeDto | TakeoverDto | WildcardZoneDto | ScopeChangeDto | null;
}

export class EventsMetaDto {
  @ApiProperty({ type: 'integer', description: 'Events in this response' }) count: number;
  @ApiProperty({ type: 'integer', description: 'The limit used (after clamping)' }) limit: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Pass as `after` for the next page or the next poll: the last event id of this page, or the `after` you ' +
      'gave when the page is empty (null when you gave none and nothing has happened yet)',
  })
  after: string | null;

  @ApiProperty({ description: 'Whether more events follow at once (read again without waiting)' })
  has_more: boolean;
}

/** An event row as the API shows it. */
export const toEventDto = (row: EventRow): HostEventDto => ({
  id: formatEventId({ ts: row.at, rank: row.rank, id: row.id }),
  type: row.type,
  host: row.host,
  domain: row.domain,
  platform: row.platform,
  at: row.at,
  before: row.before,
  after: row.after,
});
