import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { envelope } from '../common/envelope.js';
import { EventsRepository } from '../events/events.repository.js';
import { toEventDto } from '../events/dto/event.dto.js';
import { HOST_HISTORY_LIMIT } from './dto/host.dto.js';
import type { KnowledgeFilter } from './model/knowledge-filter.js';
import { windowStart } from '../common/validation/window.js';
import { DomainsService } from '../domains/domains.service.js';
import { PlatformsService } from '../platforms/platforms.service.js';
import type {
  DomainHostsQuery,
  DomainNewHostsQuery,
  NewHostsFeedQuery,
  PlatformHostsQuery,
  PlatformNewHostsQuery,
  SearchHostsQuery,
} from './dto/host-queries.js';
import type { PlatformPageOptions } from './host-lists.sql.js';
import { HostsRepository } from './hosts.repository.js';
import { RenderedJson } from '../common/rendered-json.js';
import { decodePlatformCursor, encodePlatformCursor } from './platform-cursor.js';

/** The knowledge filters a query gives. */
function filterOf(query: KnowledgeFilter): KnowledgeFilter {
  const { resolves, status, takeover, cname, wildcard, scope } = query;
  return { resolves, status, takeover, cname, wildcard, scope };
}

@Injectable()
export class HostsService {
  constructor(
    private readonly hosts: HostsRepository,
    private readonly domains: DomainsService,
    private readonly platforms: PlatformsService,
    private readonly events: EventsRepository,
  ) {}

  /*
   * The endpoints under a domain look it up first (a prepared statement, its answer kept per data version), so that
   * their statements filter by its id and are planned for its real size (see DomainHostsOptions.domain); an unknown
   * domain is a 404 before any.
   * The endpoints under a platform look it up inside their own statement, and only an empty answer costs a second
   * round trip, to tell an unknown platform (404) from an empty page.
   */

  async listForDomain(name: string, query: DomainHostsQuery) {
    const { filter, search, limit, offset } = query;
    const domain = await this.domains.requireTrackedToRead(name);
    const page = await this.hosts.listForDomain({
      domain,
      filter,
      search,
      knowledge: filterOf(query),
      fields: query.fields,
      limit,
      offset,
    });
    return RenderedJson.envelope(page.json, { limit: query.limit, offset: query.offset, total: page.total });
  }

  async newForDomain(name: string, query: DomainNewHostsQuery) {
    const since = windowStart(query);
    const domain = await this.domains.requireTrackedToRead(name);
    const page = await this.hosts.newForDomain(domain, since, query.limit, filterOf(query), query.fields);
    return RenderedJson.envelope(page.json, { since, count: page.count, limit: query.limit });
  }

  /**
   * One host and its history: its changes newest first, then its arrival (host_new) when the history is short
   * enough to reach back to it.
   */
  async one(name: string) {
    const host = await this.hosts.findOne(name);
    if (!host) throw AppError.notFound(`No host ${name} is recorded`);
    const changes = (await this.events.history(host.id, HOST_HISTORY_LIMIT)).map(toEventDto);
    if (changes.length < HOST_HISTORY_LIMIT) {
      changes.push(
        toEventDto({ ...host, at: host.first_seen_at, rank: 0, type: 'host_new', before: null, after: null }),
      );
    }
    return envelope({ ...host, history: changes });
  }

  /** The cross-program new-host feed; next_cursor is present only when another page follows. */
  async newFeed(query: NewHostsFeedQuery) {
    if ((query.before_ts === undefined) !== (query.before_id === undefined)) {
      throw AppError.invalidQuery('before_ts and before_id go together: pass both from meta.next_cursor, or neither');
    }
    const since = windowStart(query);
    const before = query.before_ts && query.before_id ? { ts: query.before_ts, id: query.before_id } : undefined;
    const page = await this.hosts.newFeed({
      since,
      limit: query.limit,
      before,
      knowledge: filterOf(query),
      fields: query.fields,
    });
    const last = page.found > query.limit ? page.last : null;
    return RenderedJson.envelope(page.json, {
      since,
      count: page.count,
      limit: query.limit,
      ...(last ? { next_cursor: { before_ts: last.first_seen_at, before_id: last.id } } : {}),
    });
  }

  async search(query: SearchHostsQuery) {
    if (query.q.length < 2) throw AppError.invalidQuery('q must be at least 2 characters');
    const page = await this.hosts.search(query.q, query.limit, query.offset, filterOf(query), query.fields);
    return RenderedJson.envelope(page.json, { q: query.q, limit: query.limit, offset: query.offset });
  }

  /** One page of the platform bulk feed, walking its programs one after another. */
  async platformPage(slug: string, query: PlatformHostsQuery) {
    const page = await this.hosts.platformPage(this.platformPageOptions(slug, query));
    if (page.found === 0) await this.platforms.requirePlatform(slug);
    const nextCursor = page.found > query.limit && page.last ? encodePlatformCursor(page.last) : null;
    return RenderedJson.envelope(page.json, {
      count: page.count,
      limit: query.limit,
      next_cursor: nextCursor,
      has_more: nextCursor !== null,
    });
  }

  /**
   * The same page as a plain host list, one per line (with its fields after it, tab-separated), and the cursor of
   * the next page (null at the end).
   */
  async platformText(slug: string, query: PlatformHostsQuery) {
    const found = await this.hosts.platformRows(this.platformPageOptions(slug, query));
    if (found.length === 0) await this.platforms.requirePlatform(slug);
    const data = found.slice(0, query.limit);
    const last = data.at(-1);
    return {
      text: data.map((h) => `${h.line}\n`).join(''),
      nextCursor: found.length > query.limit && last ? encodePlatformCursor(last) : null,
    };
  }

  private platformPageOptions(slug: string, query: PlatformHostsQuery): PlatformPageOptions {
    return {
      platform: slug,
      limit: query.limit,
      after: query.cursor ? decodePlatformCursor(query.cursor) : undefined,
      program: query.program,
      activeOnly: query.active,
      scope: query.scope,
      fields: query.fields,
    };
  }

  async newForPlatform(slug: string, query: PlatformNewHostsQuery) {
    const since = windowStart(query);
    const page = await this.hosts.newFeed({
      since,
      limit: query.limit,
      platform: slug,
      knowledge: filterOf(query),
      fields: query.fields,
    });
    if (page.found === 0) await this.platforms.requirePlatform(slug);
    return RenderedJson.envelope(page.json, { since, count: page.count, limit: query.limit });
  }
}
