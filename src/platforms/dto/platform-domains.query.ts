import { LimitParam, OffsetParam } from '../../common/validation/query-params.js';

export class PlatformDomainsQuery {
  @LimitParam(200, 1000)
  limit = 200;

  @OffsetParam()
  offset = 0;
}
