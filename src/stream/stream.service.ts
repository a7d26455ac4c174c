import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { HttpDrain } from '../common/http/http-drain.js';
import { Environment } from '../config/environment.js';
import { DomainsService } from '../domains/domains.service.js';
import { parseEventId, type StreamQuery } from './dto/stream.query.js';
import { NewHostSignal, type NewHostsSignal } from './new-host-signal.js';
import { type StreamFilter, type StreamHost, type StreamPosition, StreamRepository } from './stream.repository.js';

/** Hosts read per statement; a stream behind by more reads again at once. */
const BATCH = 500;
/** What a client waits before reconnecting (the `retry` field). */
const RETRY_MS = 2000;

/** An event's id: the host's place in the keyset, `<first_seen_at>_<id>`. */
export const eventId = (host: Pick<StreamHost, 'first_seen_at' | 'id'>) => `${host.first_seen_at}_${host.id}`;

/** One host as an SSE event. */
function hostEvent(host: StreamHost): string {
  const data = { host: host.host, domain: host.domain, platform: host.platform, first_seen_at: host.first_seen_at };
  return `id: ${eventId(host)}\nevent: host\ndata: ${JSON.stringify(data)}\n\n`;
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

  constructor(
    private readonly env: Environment,
    private readonly repository: StreamRepository,
    private readonly signal: NewHostSignal,
    private readonly domains: DomainsService,
  ) {}

  /** Validates the request and opens the stream: errors before it opens are the contract's JSON errors. */
  async open(query: StreamQuery, lastEventId: string | undefined, server: object): Promise<Readable> {
    const resume = lastEventId?.trim() || query.last_event_id;
    const at = resume !== undefined ? parseEventId(resume) : null;
    if (resume !== undefined && !at) {
      const name = lastEventId?.trim() ? 'Last-Event-ID' : 'last_event_id';
      throw ApiError.invalidQuery(`${name} must be an event id of this stream (<first_seen_at>_<id>)`);
    }
    if (query.domain && query.platform) throw ApiError.invalidQuery('give domain or platform, not both');
    if (this.sessions.size >= this.env.STREAM_MAX_CLIENTS) {
      throw new ApiError('service_unavailable', 'This process serves as many streams as it may; retry shortly');
    }
    const filter: StreamFilter = {
      platform: query.platform,
      domainId: query.domain ? (await this.domains.requireTracked(query.domain)).id : undefined,
    };
    const start = at ?? (await this.repository.tail());
    const session = new StreamSession(this.env, this.repository, this.logger, filter, start);
    this.sessions.add(session);
    const unsubscribe = this.signal.subscribe((s) => session.signalled(s));
    const undrain = HttpDrain.of(server)?.onDrain(() => session.end());
    session.body.once('close', () => {
      this.sessions.delete(session);
      unsubscribe();
      undrain?.();
    });
    return session.body;
  }

  onModuleDestroy(): void {
    for (const session of this.sessions) session.end();
  }
}

class StreamSession {
  readonly body = new PassThrough();
  private readonly timers: NodeJS.Timeout[];
  private readonly closed = new AbortController();
  private running = false;
  private again = false;
  private wroteAt = Date.now();
  private warned = false;

  constructor(
    env: Environment,
    private readonly repository: StreamRepository,
    private readonly logger: Logger,
    private readonly filter: StreamFilter,
    private position: StreamPosition,
  ) {
    this.write(`retry: ${RETRY_MS}\n: connected\n\n`);
    const heartbeatMs = env.STREAM_HEARTBEAT_SECONDS * 1000;
    this.timers = [
      setInterval(() => void this.pump(), env.STREAM_POLL_SECONDS * 1000),
      setInterval(() => Date.now() - this.wroteAt >= heartbeatMs - 50 && this.write(': heartbeat\n\n'), heartbeatMs),
    ];
    this.body.once('close', () => {
      this.closed.abort();
      this.timers.forEach(clearInterval);
    });
    void this.pump();
  }

  /** A scan committed new hosts: look now, when they may be this stream's (null: anything may have changed). */
  signalled(signal: NewHostsSignal | null): void {
    const { domainId, platform } = this.filter;
    if (signal && domainId !== undefined && signal.domain_id !== domainId) return;
    if (signal && platform && signal.platform !== platform) return;
    void this.pump();
  }

  end(): void {
    if (!this.body.writableEnded) this.body.end();
  }

  /** Writes every host after the position, a batch at a time, waiting while the client reads slowly. */
  private async pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        let hosts: StreamHost[];
        do {
          hosts = await this.repository.after(this.position, this.filter, BATCH);
          if (this.closed.signal.aborted || this.body.writableEnded) return;
          if (hosts.length === 0) break;
          const last = hosts[hosts.length - 1];
          this.position = { ts: last.first_seen_at, id: last.id };
          if (!this.write(hosts.map(hostEvent).join('')))
            await once(this.body, 'drain', { signal: this.closed.signal });
        } while (hosts.length === BATCH);
      } while (this.again);
      this.warned = false;
    } catch (e) {
      // The database did not answer: the next signal or poll tries again from the same position.
      if (!this.closed.signal.aborted && !this.warned) {
        this.warned = true;
        this.logger.warn(`a stream could not read new hosts: ${(e as Error).message}`);
      }
    } finally {
      this.running = false;
    }
  }

  private write(text: string): boolean {
    if (this.body.writableEnded) return true;
    this.wroteAt = Date.now();
    return this.body.write(text);
  }
}
