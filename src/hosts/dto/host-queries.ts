import { IsOptional, Matches } from 'class-validator';
import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import {
  BoolParam,
  EnumParam,
  LimitParam,
  OffsetParam,
  TextParam,
  TimestampParam,
} from '../../common/validation/query-params.js';
import { WindowQuery } from '../../common/validation/window.js';
import { FeedKnowledgeQuery, KnowledgeFilterQuery, ScopeParam } from '../model/knowledge-filter.query.js';
import type { ScopeMode } from '../model/knowledge-filter.js';
import type { HostField } from '../model/host-fields.js';
import { FieldsParam } from '../model/host-fields.query.js';

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

  @FieldsParam()
  fields?: HostField[];
}

/** A new-host feed's window, its filters on what is known of each host, and the fields its rows carry. */
class FeedQuery extends IntersectionType(WindowQuery, FeedKnowledgeQuery) {
  @FieldsParam()
  fields?: HostField[];
}

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

  @FieldsParam()
  fields?: HostField[];
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

  @FieldsParam(
    'txt: tab-separated after the host (addresses and chain space-separated; dns, http and takeover as their ' +
      'JSON text; empty where nothing is known).',
  )
  fields?: HostField[];
}

export class PlatformNewHostsQuery extends FeedQuery {
  @LimitParam(500, 2000)
  limit = 500;
}
