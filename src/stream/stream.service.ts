import type { Readable } from 'node:stream';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { HttpDrain } from '../common/http/http-drain.js';
import { Environment } from '../config/environment.js';
import { DomainsService } from '../domains/domains.service.js';
import { formatEventId, parseEventId, type StreamQuery } from './dto/stream.query.js';
import { EventsRepository } from '../events/events.repository.js';
import type { EventType } from '../events/dto/events.query.js';
import { toEventDto } from '../events/dto/event.dto.js';
import { formatEventId as formatChangeId, parseEventId as parseChangeId } from '../events/dto/events.query.js';
import { NewHostSignal } from '../events/new-host-signal.js';
import { HorizonRepository } from '../events/horizon.repository.js';
import { type StreamFilter, type StreamHost, StreamRepository } from './stream.repository.js';
import { type StreamFeed, StreamSession } from './stream-session.js';

/** What a client refused a place (too many streams) is told to wait before trying again (Retry-After). */
const BUSY_RETRY_SECONDS = 5;
/** A horizon this far behind now means an open transaction is holding every stream back: say so in the log. */
const LAG_WARNING_SECONDS = 60;

/** One host as an SSE event, with the fields asked for after its own keys (the row's, in the order asked). */
function hostEvent(host: StreamHost): string {
  const data: Record<string, unknown> = { ...host };
  delete data.id;
  return `id: ${formatEventId({ ts: host.first_seen_at, id: host.id })}\nevent: host\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The hosts keyset: one `event: host` per host recorded (the stream without `types`). */
function hostFeed(horizon: HorizonRepository, repository: StreamRepository, filter: StreamFilter): StreamFeed {
  return {
    horizon: () => horizon.horizon(),
    async read(after, before, limit) {
      const hosts = await repository.after(parseEventId(after)!, before, filter, limit);
      return hosts.map((h) => ({
        id: formatEventId({ ts: h.first_seen_at, id: h.id }),
        frame: hostEvent(h),
      }));
    },
  };
}

/** The change feed of GET /events (the stream with `types`): one event per change, named by its type. */
function changeFeed(
  horizon: HorizonRepository,
  events: EventsRepository,
  filter: StreamFilter,
  types: readonly EventType[],
): StreamFeed {
  return {
    horizon: () => horizon.horizon(),
    async read(after, before, limit) {
      const changes = await events.after(parseChangeId(after), before, { ...filter, types }, limit);
      return changes.map((row) => {
        const { id, type, ...data } = toEventDto(row);
        return { id, frame: `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n` };
      });
    },
  };
}

/**
 * GET /subdomains/stream: each connection follows the hosts keyset from its position, waking on a scan's
 * signal (NewHostSignal), on its own poll, and writing a heartbeat comment when idle. Streams end when the
 * process drains, and clients resume elsewhere with Last-Event-ID.
 */
@Injectable()
export class StreamService implements OnModuleDestroy {
  private readonly logger = new Logger('Stream');
  private readonly sessions = new Set<StreamSession>();
  /** Streams being opened: they count against STREAM_MAX_CLIENTS from the start. */
  private opening = 0;
  /**
   * Streams open or being opened, per owner (see ownerOf: a user, with all their keys and dashboard tabs, or an
   * operator key): STREAM_MAX_PER_KEY of them, so one owner cannot hold every place however many keys they make.
   * Per process, as STREAM_MAX_CLIENTS is: behind a balancer an owner may hold that many on each API process.
   */
  private readonly perOwner = new Map<string, number>();
  private lagWarnedAt = 0;

  constructor(
    private readonly env: Environment,
    private readonly repository: StreamRepository,
    private readonly horizons: HorizonRepository,
    private readonly events: EventsRepository,
    private readonly signal: NewHostSignal,
    private readonly domains: DomainsService,
  ) {}

  /**
   * Where a stream of new hosts opened now would start: given later as its Last-Event-ID, it resumes here, with
   * nothing recorded meanwhile missed (a page that lists the newest hosts and opens the stream after).
   */
  async hostsTail(): Promise<string> {
    const { ts } = await this.horizons.horizon();
    return formatEventId({ ts, id: '0' });
  }

  /** Validates the request and opens the stream: errors before it opens are the contract's JSON errors. */
  async open(query: StreamQuery, lastEventId: string | undefined, owner: string, server: object): Promise<Readable> {
    const resume = lastEventId?.trim() || query.last_event_id;
    const changes = query.types !== undefined;
    const valid = resume === undefined || (changes ? parseChangeId(resume) : parseEventId(resume)) !== null;
    if (!valid) {
      const name = lastEventId?.trim() ? 'Last-Event-ID' : 'last_event_id';
      const shape = changes ? 'an id of GET /events' : '<first_seen_at>_<id>';
      throw AppError.invalidQuery(`${name} must be an event id of this stream (${shape})`);
    }
    if (query.domain && query.platform) throw AppError.invalidQuery('give domain or platform, not both');
    if (changes && query.fields) {
      throw AppError.invalidQuery(
        'fields is for the stream of new hosts; with types, each change carries its own data',
      );
    }
    if (this.sessions.size + this.opening >= this.env.STREAM_MAX_CLIENTS) {
      throw busy('This process serves as many streams as it may; retry shortly');
    }
    if ((this.perOwner.get(owner) ?? 0) >= this.env.STREAM_MAX_PER_KEY) {
      throw busy('The owner of this API key holds as many open streams as one owner may; close one, or retry shortly');
    }
    this.opening++;
    this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0) + 1);
    let session: StreamSession;
    try {
      const filter: StreamFilter = {
        wildcard: query.wildcard,
        scope: query.scope,
        platform: query.platform,
        fields: query.fields,
        domainId: query.domain ? (await this.domains.requireTracked(query.domain)).id : undefined,
      };
      const feed = changes
        ? changeFeed(this.horizons, this.events, filter, [...new Set(query.types)])
        : hostFeed(this.horizons, this.repository, filter);
      const tail = async () => {
        if (!changes) return this.hostsTail();
        const { ts } = await this.horizons.horizon();
        return formatChangeId({ ts, rank: 0, id: '0' });
      };
      const start = resume ?? (await tail());
      session = new StreamSession(this.env, feed, this.logger, filter, start, resume !== undefined, (lag) =>
        this.noteLag(lag),
      );
    } catch (e) {
      this.release(owner);
      throw e;
    } finally {
      this.opening--;
    }
    this.sessions.add(session);
    const unsubscribe = this.signal.subscribe((s) => session.signalled(s));
    const undrain = HttpDrain.of(server)?.onDrain(() => session.end());
    // The body closes when the stream ends for any reason: its client went away, or the process is stopping.
    session.body.once('close', () => {
      this.sessions.delete(session);
      this.release(owner);
      unsubscribe();
      undrain?.();
    });
    return session.body;
  }

  onModuleDestroy(): void {
    for (const session of this.sessions) session.end();
  }

  private release(owner: string): void {
    const left = (this.perOwner.get(owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(owner, left);
    else this.perOwner.delete(owner);
  }

  private noteLag(seconds: number): void {
    if (seconds < LAG_WARNING_SECONDS || Date.now() - this.lagWarnedAt < 60_000) return;
    this.lagWarnedAt = Date.now();
    this.logger.warn(
      `new-host events are held back ${Math.round(seconds)} s by a transaction still open on the database ` +
        '(see pg_stat_activity): they follow once it ends',
    );
  }
}

/** The answer when no place is free: 503 in the contract's shape, with when to try again. */
function busy(message: string): AppError {
  return new AppError('service_unavailable', message, { retryAfterSeconds: BUSY_RETRY_SECONDS });
}
