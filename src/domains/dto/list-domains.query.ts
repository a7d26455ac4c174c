import { BoolParam, EnumParam, LimitParam, OffsetParam, TextParam } from '../../common/validation/query-params.js';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';

export const DOMAIN_SORTS = ['domain', 'total_subdomains', 'new_subdomains_last_scan', 'last_scanned_at'] as const;
export type DomainSort = (typeof DOMAIN_SORTS)[number];

export class ListDomainsQuery {
  @TextParam({ description: 'Case-insensitive substring of the domain, matched literally' })
  search?: string;

  @EnumParam(PLATFORM_SLUGS, undefined, 'Only domains of this platform')
  platform?: string;

  @BoolParam(undefined, 'Only enabled (true) or disabled (false) domains')
  enabled?: boolean;

  @EnumParam(
    DOMAIN_SORTS,
    'domain',
    'Order: domain A→Z; the counters and last_scanned_at largest/newest first (never-scanned last); ties by domain',
  )
  sort: DomainSort = 'domain';

  @LimitParam(100, 1000)
  limit = 100;

  @OffsetParam()
  offset = 0;
}
