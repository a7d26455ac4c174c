import { Injectable } from '@nestjs/common';
import { Environment } from '../config/environment.js';
import { DataVersion } from './data-version.js';
import { type Queryable, type Statement } from './sql.js';
import { jsonPage, jsonPageAndTotal } from './json-pages.js';
import { VersionKept } from './version-kept.js';

/** Counts kept at most: one per list and filters asked, a few dozen bytes each. */
const KEPT_COUNTS = 10_000;

/**
 * The counts of the API's filtered lists (pageWithCount's count: domains, scans, a platform's domains, a search
 * among a domain's hosts), kept per data version. A count is exact until a write moves the version, so the next
 * pages of a list, and the same list asked again, read their rows alone: counting 350,000 scans or 50,000 domains
 * costs 8–30 ms a page otherwise.
 *
 * - Kept under the data version (VersionKept): a count read while a write commits is kept under the version before
 *   that write, which the next request no longer asks for (as ResponseCache's answers).
 * - A count whose window moves with the clock (`now()` in its statement) is never kept.
 * - Off with RESPONSE_CACHE_MB=0.
 */
@Injectable()
export class ListCounts {
  private readonly kept: VersionKept<number>;

  constructor(version: DataVersion, env: Environment) {
    this.kept = new VersionKept(version, env, KEPT_COUNTS);
  }

  /** The page rendered (jsonPage) and the count of all that match: counted once per data version. */
  async pageAndTotal(
    db: Queryable,
    statements: { page: Statement; count: Statement },
    take: number,
  ): Promise<{ json: string | Buffer; total: number }> {
    const { count } = statements;
    if (/\bnow\(\)/i.test(count.sql)) return jsonPageAndTotal(db, statements, take);
    const { kept, keep } = this.kept.at(`${count.sql}\n${JSON.stringify(count.params)}`);
    if (kept !== undefined) return { json: (await jsonPage(db, statements.page, take)).json, total: kept };
    const found = await jsonPageAndTotal(db, statements, take);
    keep(found.total);
    return found;
  }
}
