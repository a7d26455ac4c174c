import { LimitParam, OffsetParam, TextParam } from '../../common/validation/query-params.js';

/** The search page's query: `q` may be missing or short (the page asks for more), unlike GET /subdomains/search. */
export class SearchPageQuery {
  @TextParam({ description: 'Substring of the host name, matched literally' })
  q?: string;

  @LimitParam(100, 1000)
  limit = 100;

  @OffsetParam()
  offset = 0;
}
