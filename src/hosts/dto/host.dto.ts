import { HOST_SOURCES, type HostSource } from '../model/host-sources.js';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { HostDnsDto, HttpProbeDto, TakeoverDto } from '../model/knowledge.dto.js';
import { HostEventDto } from '../../events/dto/event.dto.js';

/** How many of a host's changes GET /hosts/{host} shows. */
export const HOST_HISTORY_LIMIT = 100;

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
    '(SCAN_COMMAND), permute (permutations of known names). Empty for a host recorded before sources were kept ' +
    'and not found again since.',
} as const;
const DNS = {
  type: HostDnsDto,
  nullable: true,
  description:
    'What the host resolved to when last asked (with RESOLVE=on): status, A and AAAA addresses, the CNAME chain, ' +
    'resolved_at. null when it was never resolved.',
} as const;
const HTTP = {
  type: HttpProbeDto,
  nullable: true,
  description:
    'What the probe of its web server found (with PROBE=on): whether anything answered, scheme, port, status, ' +
    'final URL, title, Server, length, TLS certificate, probed_at. null when never probed.',
} as const;
const WILDCARD = {
  description:
    'true when only guesses (brute force, permutations) found the host and it resolves to nothing but its ' +
    "zone's wildcard answers: an " +
    'echo, not a host of its own. Feeds, the stream and webhooks leave such hosts out unless wildcard=include.',
} as const;
const IN_SCOPE = {
  description:
    "false when one of its root domain's exclusion rules names the host: it is recorded, but the lists, search " +
    'and feeds show it only with scope=out or scope=all.',
} as const;
const TAKEOVER = {
  type: TakeoverDto,
  nullable: true,
  description:
    "Set when the host's CNAME chain dangles onto a service of the takeover list (NXDOMAIN): the service, the " +
    "list's verdict and the evidence. null otherwise.",
} as const;

/**
 * What a host row carries on request (fields=), after its default keys: each key only when asked for. The objects
 * are those of GET /hosts/{host}; the flat ones the same knowledge as one value each.
 */
export class HostFieldsDto {
  @ApiPropertyOptional({ ...DNS, description: `With fields=dns: ${DNS.description}` }) dns?: HostDnsDto | null;
  @ApiPropertyOptional({ ...HTTP, description: `With fields=http: ${HTTP.description}` }) http?: HttpProbeDto | null;

  @ApiPropertyOptional({ ...TAKEOVER, description: `With fields=takeover: ${TAKEOVER.description}` })
  takeover?: TakeoverDto | null;

  @ApiPropertyOptional({ description: `With fields=wildcard: ${WILDCARD.description}` }) wildcard?: boolean;

  @ApiPropertyOptional({
    type: [String],
    description: 'With fields=ips: the A and AAAA addresses of the last DNS answer; empty where none is known',
  })
  ips?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'With fields=cname: the CNAME chain of the last DNS answer, in order; empty where none is known',
  })
  cname?: string[];

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: 'With fields=status: the status of the last HTTP probe; null where none is known',
  })
  status?: number | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'With fields=title: the title of the last HTTP probe; null where none is known',
  })
  title?: string | null;
}

class DomainHostRow {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(ACTIVE) is_active: boolean;
  @ApiProperty(SOURCES) sources: HostSource[];
  @ApiProperty(IN_SCOPE) in_scope: boolean;
}

/** A host in a per-domain list. */
export class DomainHostDto extends IntersectionType(DomainHostRow, HostFieldsDto) {}

class DomainNewHostRow {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(SOURCES) sources: HostSource[];
  @ApiProperty(IN_SCOPE) in_scope: boolean;
}

/** A host in a per-domain new-host window. */
export class DomainNewHostDto extends IntersectionType(DomainNewHostRow, HostFieldsDto) {}

class FeedHostRow {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(DOMAIN) domain: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(SOURCES) sources: HostSource[];
  @ApiProperty(IN_SCOPE) in_scope: boolean;
}

/** A host in the cross-program feeds (new hosts, platform new hosts). */
export class FeedHostDto extends IntersectionType(FeedHostRow, HostFieldsDto) {}

class SearchHostRow {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(DOMAIN) domain: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;
  @ApiProperty(ACTIVE) is_active: boolean;
  @ApiProperty(SOURCES) sources: HostSource[];
  @ApiProperty(IN_SCOPE) in_scope: boolean;
}

/** A search hit. */
export class SearchHostDto extends IntersectionType(SearchHostRow, HostFieldsDto) {}

class PlatformHostRow {
  @ApiProperty(HOST) host: string;
  @ApiProperty(DOMAIN) domain: string;
  @ApiProperty(ACTIVE) is_active: boolean;
  @ApiProperty(SOURCES) sources: HostSource[];
  @ApiProperty(IN_SCOPE) in_scope: boolean;
}

/** A host in the platform bulk feed. */
export class PlatformHostDto extends IntersectionType(PlatformHostRow, HostFieldsDto) {}

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

/** One host with everything known of it: GET /hosts/{host}. */
export class HostDetailDto {
  @ApiProperty(ID) id: string;
  @ApiProperty(HOST) host: string;
  @ApiProperty(DOMAIN) domain: string;
  @ApiProperty({ description: 'Platform slug of its root domain', example: 'hackerone' }) platform: string;
  @ApiProperty(FIRST_SEEN) first_seen_at: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When a scan or the CT follower last saw it (UTC)' })
  last_seen_at: string;

  @ApiProperty(ACTIVE) is_active: boolean;
  @ApiProperty(SOURCES) sources: HostSource[];
  @ApiProperty(DNS) dns: HostDnsDto | null;
  @ApiProperty(TAKEOVER) takeover: TakeoverDto | null;
  @ApiProperty(HTTP) http: HttpProbeDto | null;
  @ApiProperty(WILDCARD) wildcard: boolean;
  @ApiProperty(IN_SCOPE) in_scope: boolean;

  @ApiProperty({
    type: HostEventDto,
    isArray: true,
    description: `Its changes, newest first (the last ${HOST_HISTORY_LIMIT}), ending with its arrival (host_new)`,
  })
  history: HostEventDto[];
}
