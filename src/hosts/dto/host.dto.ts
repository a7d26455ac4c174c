import { HOST_SOURCES, type HostSource } from '../host-sources.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const ID = { description: 'Host id; the before_id cursor component of /subdomains/new', example: '123456' };
const HOST = { description: 'Full host name', example: 'api.example.com' };
const FIRST_SEEN = {
  type: 'string',
  format: 'date-time',
  description: 'When a scan first found the host (UTC)',
} as const;
const ACTIVE = { description: 'false when the host is no longer seen' };
const DOMAIN = { description: 'Its root domain', example: 'example.com' };
const SOURCES = {
  type: 'string',
  enum: HOST_SOURCES,
  isArray: true,
  example: ['ct', 'crtsh'],
  description:
    'The sources that have found the host: ct (the CT log follower), crtsh, dns (brute force), command ' +
    '(SCAN_COMMAND). Empty for a host recorded before sources were kept and not found again since.',
} as const;

/** A host in a per-domain list. */
export class DomainHostDto {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(ACTIVE) is_active: boolean;
  @ApiProperty(SOURCES) sources: HostSource[];
}

/** A host in a per-domain new-host window. */
export class DomainNewHostDto {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(SOURCES) sources: HostSource[];
}

/** A host in the cross-program feeds (new hosts, platform new hosts). */
export class FeedHostDto {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(DOMAIN) domain: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(SOURCES) sources: HostSource[];
}

/** A search hit. */
export class SearchHostDto {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(DOMAIN) domain: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(ACTIVE) is_active: boolean;
  @ApiProperty(SOURCES) sources: HostSource[];
}

/** A host in the platform bulk feed. */
export class PlatformHostDto {
  @ApiProperty(HOST) host: string;
  @ApiProperty(DOMAIN) domain: string;
  @ApiProperty(ACTIVE) is_active: boolean;
  @ApiProperty(SOURCES) sources: HostSource[];
}

export class FeedCursorDto {
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: 'first_seen_at of the last row; pass back as before_ts',
  })
  before_ts: string;

  @ApiProperty({ description: 'id of the last row; pass back as before_id' })
  before_id: string;
}

export class FeedMetaDto {
  @ApiProperty({ type: 'string', format: 'date-time' }) since: string;
  @ApiProperty({ type: 'integer', description: 'Rows in this response' }) count: number;
  @ApiProperty({ type: 'integer', description: 'The limit used (after clamping)' }) limit: number;

  @ApiPropertyOptional({ type: FeedCursorDto, description: 'Absent on the last page' })
  next_cursor?: FeedCursorDto;
}

export class SearchMetaDto {
  @ApiProperty({ description: 'The search text as used (trimmed)' }) q: string;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) offset: number;
}

export class PlatformFeedMetaDto {
  @ApiProperty({ type: 'integer', description: 'Rows in this response' }) count: number;
  @ApiProperty({ type: 'integer', description: 'The limit used (after clamping)' }) limit: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as cursor for the next page; null at the end' })
  next_cursor: string | null;

  @ApiProperty({ description: 'Whether another page follows' }) has_more: boolean;
}
