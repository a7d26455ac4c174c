import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Logger } from '@nestjs/common';
import { Rerun } from '../common/rerun.js';
import type { Environment } from '../config/environment.js';
import type { NewHostsSignal } from '../events/new-host-signal.js';
import type { Horizon } from '../events/horizon.repository.js';
import type { StreamFilter } from './stream.repository.js';

/** Hosts read per statement; a stream behind by more reads again at once. */
export const BATCH = 500;
/** What a client waits before reconnecting (the `retry` field). */
const RETRY_MS = 2000;
/** The longest wait between two looks for hosts a signal announced and the horizon still holds back. */
const RELOOK_MAX_MS = 2000;

/** The opening event: where the stream starts (its id, and `after` in its data) and whether it resumed. */
function readyEvent(id: string, resumed: boolean): string {
  return `retry: ${RETRY_MS}\nid: ${id}\nevent: ready\ndata: ${JSON.stringify({ after: id, resumed })}\n\n`;
}

/** What a stream reads: where the horizon is, and the events after an id and before it, as SSE frames. */
export interface StreamFeed {
  horizon(): Promise<Horizon>;
  /** Frames after the event id `after` and before `before`, oldest first, with the id of each. */
  read(after: string, before: string, limit: number): Promise<{ id: string; frame: string }[]>;
}

/** What a session reads of the configuration. */
export type StreamSessionEnvironment = Pick<Environment, 'STREAM_HEARTBEAT_SECONDS' | 'STREAM_POLL_SECONDS'>;

/**
 * One open stream: it writes the ready event, then every frame of its feed after its position and before the
 * horizon, waking on a signal (signalled), on its own poll, and writing a heartbeat comment when idle. Its body
 * is what the client reads; the session stops when the body closes.
 */
export class StreamSession {
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
    env: StreamSessionEnvironment,
    private readonly feed: StreamFeed,
    private readonly logger: Pick<Logger, 'warn'>,
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
