import { IsOptional, Matches } from 'class-validator';
import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import {
  BoolParam,
  EnumListParam,
  EnumParam,
  LimitParam,
  OffsetParam,
  TextParam,
  TimestampParam,
} from '../../common/validation/query-params.js';
import { WindowQuery } from '../../common/validation/window.js';
import { FeedKnowledgeQuery, KnowledgeFilterQuery, ScopeParam } from '../model/knowledge-filter.query.js';
import type { ScopeMode } from '../model/knowledge-filter.js';
import { HOST_FIELDS, type HostField } from '../model/host-fields.js';

export const HOST_FILTERS = ['all', 'new', 'active', 'inactive'] as const;
export type HostFilter = (typeof HOST_FILTERS)[number];

export class DomainHostsQuery extends KnowledgeFilterQuery {
  @EnumParam(
    HOST_FILTERS,
    'all',
    'all; new = first seen in the last 24 hours; active = still seen; inactive = no longer seen',
  )
  filter: HostFilter = 'all';

  @TextParam({ description: 'Case-insensitive substring of the host, matched literally' })
  search?: string;

  @LimitParam(100, 1000)
  limit = 100;

  @OffsetParam()
  offset = 0;
}

/** A new-host feed's window and its filters on what is known of each host. */
class FeedQuery extends IntersectionType(WindowQuery, FeedKnowledgeQuery) {}

export class DomainNewHostsQuery extends FeedQuery {
  @LimitParam(500, 2000)
  limit = 500;
}

export class NewHostsFeedQuery extends FeedQuery {
  @LimitParam(500, 2000)
  limit = 500;

  @TimestampParam('Cursor: first_seen_at of the last row of the previous page (give with before_id)')
  before_ts?: string;

  @ApiPropertyOptional({
    type: 'string',
    pattern: '^[0-9]{1,18}$',
    description: 'Cursor: id of the last row of the previous page (give with before_ts)',
  })
  @IsOptional()
  @Matches(/^[0-9]{1,18}$/, { message: 'before_id must be a host id (digits)' })
  before_id?: string;
}

export class SearchHostsQuery extends KnowledgeFilterQuery {
  @TextParam({
    required: true,
    minLength: 2,
    description: 'Substring of the host name, at least 2 characters, matched literally',
  })
  q: string;

  @LimitParam(100, 1000)
  limit = 100;

  @OffsetParam()
  offset = 0;
}

export const FEED_FORMATS = ['json', 'txt'] as const;

export class PlatformHostsQuery {
  @TextParam({
    maxLength: 2048,
    description: 'Opaque cursor: meta.next_cursor (or X-Next-Cursor) of the previous page',
  })
  cursor?: string;

  @LimitParam(1000, 10000)
  limit = 1000;

  @TextParam({ description: 'Only programs whose root domain contains this text' })
  program?: string;

  @BoolParam(true, 'true: only hosts still seen; false: also hosts no longer seen')
  active = true;

  @ScopeParam()
  scope: ScopeMode = 'in';

  @EnumParam(FEED_FORMATS, 'json', 'json: the envelope; txt: one host per line, next cursor in X-Next-Cursor')
  format: (typeof FEED_FORMATS)[number] = 'json';

  @EnumListParam(
    HOST_FIELDS,
    `What is known of each host, a comma list of ${HOST_FIELDS.join(', ')}, as in GET /export: the addresses (A ` +
      'and AAAA) and the CNAME chain of the last DNS answer, the status and title of the last HTTP probe. json: ' +
      'extra keys of each row (arrays, a number, a string; empty arrays or null where nothing is known); txt: ' +
      'tab-separated after the host (addresses and chain space-separated, empty where nothing is known).',
    'ips,status,title',
  )
  fields?: HostField[];
}

export class PlatformNewHostsQuery extends FeedQuery {
  @LimitParam(500, 2000)
  limit = 500;
}
