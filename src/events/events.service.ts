import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { envelope } from '../common/envelope.js';
import { DomainsService } from '../domains/domains.service.js';
import { HorizonRepository } from './horizon.repository.js';
import { toEventDto } from './dto/event.dto.js';
import { EVENT_TYPES, type EventsQuery, parseEventId } from './dto/events.query.js';
import { EventsRepository } from './events.repository.js';

/**
 * GET /events: every change, oldest first, on a cursor. Like the stream, a page stops short of the horizon (the
 * start of the oldest transaction that may still be writing), so a change committed late is never passed over.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly horizons: HorizonRepository,
    private readonly domains: DomainsService,
  ) {}

  async list(query: EventsQuery) {
    const after = query.after === undefined ? null : parseEventId(query.after);
    if (query.after !== undefined && !after) {
      throw AppError.invalidQuery('after must be an event id (the id of an event of this feed)');
    }
    if (query.domain && query.platform) throw AppError.invalidQuery('give domain or platform, not both');
    const domainId = query.domain ? (await this.domains.requireTracked(query.domain)).id : undefined;
    const horizon = await this.horizons.horizon();
    const types = query.type ? [...new Set(query.type)] : EVENT_TYPES;
    const found = await this.events.after(
      after,
      horizon.ts,
      { types, platform: query.platform, domainId, wildcard: query.wildcard, scope: query.scope },
      query.limit + 1,
    );
    const page = found.slice(0, query.limit).map(toEventDto);
    return envelope(page, {
      count: page.length,
      limit: query.limit,
      after: page.at(-1)?.id ?? query.after ?? null,
      has_more: found.length > query.limit,
    });
  }
}
