import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
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
import { HostsRepository } from './hosts.repository.js';
import { decodePlatformCursor, encodePlatformCursor } from './platform-cursor.js';

@Injectable()
export class HostsService {
  constructor(
    private readonly hosts: HostsRepository,
    private readonly domains: DomainsService,
    private readonly platforms: PlatformsService,
  ) {}

  async listForDomain(name: string, query: DomainHostsQuery) {
    const domain = await this.domains.requireTracked(name);
    const page = await this.hosts.listForDomain(domain.id, query.filter, query.search, query.limit, query.offset);
    return { data: page.rows, meta: { limit: query.limit, offset: query.offset, total: page.total } };
  }

  async newForDomain(name: string, query: DomainNewHostsQuery) {
    const domain = await this.domains.requireTracked(name);
    const since = windowStart(query);
    const data = await this.hosts.newForDomain(domain.id, since, query.limit);
    return { data, meta: { since, count: data.length, limit: query.limit } };
  }

  /** The cross-program new-host feed; next_cursor is present only when another page follows. */
  async newFeed(query: NewHostsFeedQuery) {
    if ((query.before_ts === undefined) !== (query.before_id === undefined)) {
      throw ApiError.invalidQuery('before_ts and before_id go together: pass both from meta.next_cursor, or neither');
    }
    const since = windowStart(query);
    const before = query.before_ts && query.before_id ? { ts: query.before_ts, id: query.before_id } : undefined;
    const found = await this.hosts.newFeed({ since, limit: query.limit, before });
    const data = found.slice(0, query.limit);
    const last = data.at(-1);
    const more = found.length > query.limit && last;
    return {
      data,
      meta: {
        since,
        count: data.length,
        limit: query.limit,
        ...(more ? { next_cursor: { before_ts: last.first_seen_at, before_id: last.id } } : {}),
      },
    };
  }

  async search(query: SearchHostsQuery) {
    if (query.q.length < 2) throw ApiError.invalidQuery('q must be at least 2 characters');
    const data = await this.hosts.search(query.q, query.limit, query.offset);
    return { data, meta: { q: query.q, limit: query.limit, offset: query.offset } };
  }

  /** One page of the platform bulk feed, walking its programs one after another. */
  async platformPage(slug: string, query: PlatformHostsQuery) {
    await this.platforms.requirePlatform(slug);
    const after = query.cursor ? decodePlatformCursor(query.cursor) : undefined;
    const found = await this.hosts.platformPage({
      platform: slug,
      limit: query.limit,
      after,
      program: query.program,
      activeOnly: query.active,
    });
    const data = found.slice(0, query.limit);
    const last = data.at(-1);
    const nextCursor = found.length > query.limit && last ? encodePlatformCursor(last) : null;
    return {
      data,
      meta: { count: data.length, limit: query.limit, next_cursor: nextCursor, has_more: nextCursor !== null },
    };
  }

  async newForPlatform(slug: string, query: PlatformNewHostsQuery) {
    await this.platforms.requirePlatform(slug);
    const since = windowStart(query);
    const data = (await this.hosts.newFeed({ since, limit: query.limit, platform: slug })).slice(0, query.limit);
    return { data, meta: { since, count: data.length, limit: query.limit } };
  }
}
