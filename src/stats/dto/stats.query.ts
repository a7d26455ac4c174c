import { EnumParam, LimitParam } from '../../common/validation/query-params.js';
import { WindowQuery } from '../../common/validation/window.js';

export class TopDomainsQuery extends WindowQuery {
  @LimitParam(20, 200)
  limit = 20;
}

export const BUCKETS = ['hour', 'day', 'week', 'month'] as const;
export type Bucket = (typeof BUCKETS)[number];

export class TimeseriesQuery extends WindowQuery {
  @EnumParam(BUCKETS, 'hour', 'Bucket size; weeks start on Monday, all buckets in UTC')
  bucket: Bucket = 'hour';
}
