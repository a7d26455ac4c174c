import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { HttpDrain } from '../common/http/http-drain.js';
import { Rerun } from '../common/rerun.js';
import { Environment } from '../config/environment.js';
import { DomainsService } from '../domains/domains.service.js';
import { formatEventId, parseEventId, type StreamQuery } from './dto/stream.query.js';
import { EventsRepository } from '../events/events.repository.js';
import type { EventType } from '../events/dto/events.query.js';
import { toEventDto } from '../events/dto/event.dto.js';
import { formatEventId as formatChangeId, parseEventId as parseChangeId } from '../events/dto/events.query.js';
import { NewHostSignal, type NewHostsSignal } from '../events/new-host-signal.js';
import { type Horizon, HorizonRepository } from '../events/horizon.repository.js';
import { type StreamFilter, type StreamHost, StreamRepository } from './stream.repository.js';

/** Hosts read per statement; a stream behind by more reads again at once. */
const BATCH = 500;
/** What a client waits before reconnecting (the `retry` field). */
const RETRY_MS = 2000;
/** What a client refused a place (too many streams) is told to wait before trying again (Retry-After). */
const BUSY_RETRY_SECONDS = 5;
/** The longest wait between two looks for hosts a signal announced and the horizon still holds back. */
const RELOOK_MAX_MS = 2000;
/** A horizon this far behind now means an open transaction is holding every stream back: say so in the log. */
const LAG_WARNING_SECONDS = 60;

/** The opening event: where the stream starts (its id, and `after` in its data) and whether it resumed. */
function readyEvent(id: string, resumed: boolean): string {
  return `retry: ${RETRY_MS}\nid: ${id}\nevent: ready\ndata: ${JSON.stringify({ after: id, resumed })}\n\n`;
}

/** One host as an SSE event. */
function hostEvent(host: StreamHost): string {
  const data = {
    host: host.host,
    domain: host.domain,
    platform: host.platform,
    first_seen_at: host.first_seen_at,
    sources: host.sources,
  };
  return `id: ${formatEventId({ ts: host.first_seen_at, id: host.id })}\nevent: host\ndata: ${JSON.stringify(data)}\n\n`;
}

/** What a stream reads: where the horizon is, and the events after an id and before it, as SSE frames. */
interface StreamFeed {
  horizon(): Promise<Horizon>;
  /** Frames after the event id `after` and before `before`, oldest first, with the id of each. */
  read(after: string, before: string, limit: number): Promise<{ id: string; frame: string }[]>;
}

/** The hosts keyset: one `event: host` per host recorded (the stream without `types`). */
function hostFeed(horizon: HorizonRepository, repository: StreamRepository, filter: StreamFilter): StreamFeed {
  return {
    horizon: () => horizon.horizon(),
    async read(after, before, limit) {
      const hosts = await repository.after(parseEventId(after)!, before, filter, limit);
      return hosts.map((h) => ({ id: formatEventId({ ts: h.first_seen_at, id: h.id }), frame: hostEvent(h) }));
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
   * Streams open or being opened, per API key: STREAM_MAX_PER_KEY of them, so one key cannot hold every place.
   * Per process, as STREAM_MAX_CLIENTS is: behind a balancer a key may hold that many on each API process.
   */
  private readonly perKey = new Map<string, number>();
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
  async open(query: StreamQuery, lastEventId: string | undefined, keyId: string, server: object): Promise<Readable> {
    const resume = lastEventId?.trim() || query.last_event_id;
    const changes = query.types !== undefined;
    const valid = resume === undefined || (changes ? parseChangeId(resume) : parseEventId(resume)) !== null;
    if (!valid) {
      const name = lastEventId?.trim() ? 'Last-Event-ID' : 'last_event_id';
      const shape = changes ? 'an id of GET /events' : '<first_seen_at>_<id>';
      throw AppError.invalidQuery(`${name} must be an event id of this stream (${shape})`);
    }
    if (query.domain && query.platform) throw AppError.invalidQuery('give domain or platform, not both');
    if (this.sessions.size + this.opening >= this.env.STREAM_MAX_CLIENTS) {
      throw busy('This process serves as many streams as it may; retry shortly');
    }
    if ((this.perKey.get(keyId) ?? 0) >= this.env.STREAM_MAX_PER_KEY) {
      throw busy('This API key holds as many open streams as one key may; close one, or retry shortly');
    }
    this.opening++;
    this.perKey.set(keyId, (this.perKey.get(keyId) ?? 0) + 1);
    let session: StreamSession;
    try {
      const filter: StreamFilter = {
        wildcard: query.wildcard,
        scope: query.scope,
        platform: query.platform,
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
      this.release(keyId);
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
      this.release(keyId);
      unsubscribe();
      undrain?.();
    });
    return session.body;
  }

  onModuleDestroy(): void {
    for (const session of this.sessions) session.end();
  }

  private release(keyId: string): void {
    const left = (this.perKey.get(keyId) ?? 1) - 1;
    if (left > 0) this.perKey.set(keyId, left);
    else this.perKey.delete(keyId);
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

class StreamSession {
  readonly body = new PassThrough();
  private readonly timers: NodeJS.Timeout[];
  private readonly closed = new AbortController();
  private readonly pumping = new Rerun(() => this.pump());
  private wroteAt = Date.now();
  private warned = false;
  /** A signal came that the next pump has not yet looked at. */
  private signalPending = false;
  /**
   * The database's time at the first pump after a signal: the hosts that signal announced began before it. While
   * the horizon is short of it, an open transaction holds them back, and the stream looks again soon rather than
   * waiting for the next signal or poll.
   */
  private awaiting: string | null = null;
  private retryMs = 0;
  private retry: NodeJS.Timeout | null = null;
  private readonly pollMs: number;

  constructor(
    env: Environment,
    private readonly feed: StreamFeed,
    private readonly logger: Logger,
    private readonly filter: StreamFilter,
    private position: string,
    resumed: boolean,
    private readonly onLag: (seconds: number) => void,
  ) {
    // The starting position as the last event id, so a client that reconnects before any host arrives resumes
    // from it rather than from a later tail. It rides on an event with data: parsers that follow the older
    // reading of the SSE spec (the eventsource npm package among them) drop an id that comes without data.
    this.write(readyEvent(position, resumed));
    const heartbeatMs = env.STREAM_HEARTBEAT_SECONDS * 1000;
    this.pollMs = env.STREAM_POLL_SECONDS * 1000;
    this.timers = [
      setInterval(() => void this.pumping.run(), env.STREAM_POLL_SECONDS * 1000),
      setInterval(() => Date.now() - this.wroteAt >= heartbeatMs - 50 && this.write(': heartbeat\n\n'), heartbeatMs),
    ];
    this.body.once('close', () => {
      this.closed.abort();
      this.timers.forEach(clearInterval);
      if (this.retry) clearTimeout(this.retry);
    });
    void this.pumping.run();
  }

  /** A scan committed new hosts: look now, when they may be this stream's (null: anything may have changed). */
  signalled(signal: NewHostsSignal | null): void {
    const { domainId, platform } = this.filter;
    if (signal && domainId !== undefined && signal.domain_id !== domainId) return;
    if (signal && platform && signal.platform !== platform) return;
    this.signalPending = true;
    void this.pumping.run();
  }

  end(): void {
    if (!this.body.writableEnded) this.body.end();
  }

  /** Writes every host after the position and before the horizon, a batch at a time, waiting for slow readers. */
  private async pump(): Promise<void> {
    try {
      const signalled = this.signalPending;
      this.signalPending = false;
      const horizon = await this.feed.horizon();
      this.onLag(horizon.lag_seconds);
      if (signalled && (this.awaiting === null || this.awaiting < horizon.now)) this.awaiting = horizon.now;
      this.lookAgainIfHeldBack(horizon.ts);
      let frames: { id: string; frame: string }[];
      do {
        frames = await this.feed.read(this.position, horizon.ts, BATCH);
        if (this.closed.signal.aborted || this.body.writableEnded || frames.length === 0) return;
        this.position = frames[frames.length - 1].id;
        const text = frames.map((f) => f.frame).join('');
        if (!this.write(text)) await once(this.body, 'drain', { signal: this.closed.signal });
      } while (frames.length === BATCH);
      this.warned = false;
    } catch (e) {
      // The database did not answer: the next signal or poll tries again from the same position.
      if (!this.closed.signal.aborted && !this.warned) {
        this.warned = true;
        this.logger.warn(`a stream could not read new hosts: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Hosts a signal announced that the horizon still holds back are looked for again after 100 ms, doubling up to
   * RELOOK_MAX_MS (or the poll interval, if shorter), until the horizon passes the moment of the signal: a
   * transaction that holds the horizon back for a while delays the hosts by at most that much past its end.
   */
  private lookAgainIfHeldBack(horizon: string): void {
    if (this.awaiting === null || horizon >= this.awaiting) {
      this.awaiting = null;
      this.retryMs = 0;
      return;
    }
    if (this.retry) return;
    this.retryMs = Math.min(this.retryMs ? this.retryMs * 2 : 100, this.pollMs, RELOOK_MAX_MS);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.pumping.run();
    }, this.retryMs);
  }

  private write(text: string): boolean {
    if (this.body.writableEnded) return true;
    this.wroteAt = Date.now();
    return this.body.write(text);
  }
}
