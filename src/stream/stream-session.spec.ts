import { jest } from '@jest/globals';
import type { Horizon } from '../events/horizon.repository.js';
import type { StreamFilter } from './stream.repository.js';
import { BATCH, type StreamFeed, StreamSession } from './stream-session.js';

/** The instant of event n: one microsecond apart, so that ids sort as text in the order of their events. */
const at = (n: number) => `2026-12-01T10:00:00.${String(n).padStart(6, '0')}Z`;
const idOf = (n: number) => `${at(n)}_${n}`;
const frameOf = (n: number, padding = 0) =>
  `id: ${idOf(n)}\nevent: host\ndata: ${JSON.stringify({ n, pad: 'x'.repeat(padding) })}\n\n`;
const frames = (from: number, to: number, padding = 0) =>
  Array.from({ length: to - from + 1 }, (_, i) => frameOf(from + i, padding)).join('');
const START = idOf(0);
/** A horizon past every event the tests record. */
const LATER = '2026-12-01T10:00:01.000000Z';

/** Events recorded in order, served as the real feeds serve them: after an id, before the horizon, a limit at most. */
class FakeFeed implements StreamFeed {
  readonly events: number[] = [];
  horizonIs: Horizon = { ts: LATER, lag_seconds: 0, now: LATER };
  /** When horizon() was asked, on the fake clock. */
  readonly looks: number[] = [];
  readonly reads: { after: string; before: string; limit: number }[] = [];
  failure: Error | null = null;
  /** While set, reads wait for it to resolve. */
  gate: Promise<void> | null = null;
  padding = 0;
  private reading = 0;
  mostReadsAtOnce = 0;

  record(from: number, to: number): void {
    for (let n = from; n <= to; n++) this.events.push(n);
  }

  horizon(): Promise<Horizon> {
    this.looks.push(Date.now());
    return this.failure ? Promise.reject(this.failure) : Promise.resolve({ ...this.horizonIs });
  }

  async read(after: string, before: string, limit: number): Promise<{ id: string; frame: string }[]> {
    this.reads.push({ after, before, limit });
    this.mostReadsAtOnce = Math.max(this.mostReadsAtOnce, ++this.reading);
    try {
      if (this.gate) await this.gate;
      if (this.failure) throw this.failure;
      return this.events
        .filter((n) => idOf(n) > after && at(n) < before)
        .slice(0, limit)
        .map((n) => ({ id: idOf(n), frame: frameOf(n, this.padding) }));
    } finally {
      this.reading--;
    }
  }
}

const ENV = { STREAM_HEARTBEAT_SECONDS: 15, STREAM_POLL_SECONDS: 5 };
const ready = (id: string, resumed: boolean) =>
  `retry: 2000\nid: ${id}\nevent: ready\ndata: ${JSON.stringify({ after: id, resumed })}\n\n`;

/** Lets every pending promise and stream callback run (nextTick and setImmediate stay real). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function advance(ms: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(ms);
  await settle();
}

let sessions: StreamSession[] = [];

function open(
  feed: FakeFeed,
  opts: { position?: string; resumed?: boolean; filter?: StreamFilter; env?: typeof ENV; read?: boolean } = {},
) {
  const warnings: string[] = [];
  const lags: number[] = [];
  const session = new StreamSession(
    opts.env ?? ENV,
    feed,
    { warn: (message: unknown) => void warnings.push(String(message)) },
    opts.filter ?? {},
    opts.position ?? START,
    opts.resumed ?? false,
    (seconds) => lags.push(seconds),
  );
  sessions.push(session);
  let text = '';
  /** Starts reading the body, as the HTTP response does: everything written so far comes first. */
  const readBody = () => session.body.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  if (opts.read !== false) readBody();
  return { session, warnings, lags, readBody, text: () => text };
}

beforeEach(() => {
  // Streams and promises run on nextTick and setImmediate: only the clock and the timers are fake.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'], now: new Date(at(0)) });
});

afterEach(() => {
  for (const session of sessions) session.body.destroy();
  sessions = [];
  jest.useRealTimers();
});

describe('what a stream writes', () => {
  it('opens with the ready event: the retry interval, its start as the id, and after and resumed in its data', async () => {
    const fresh = open(new FakeFeed());
    const resumed = open(new FakeFeed(), { position: idOf(7), resumed: true });
    await settle();

    expect(fresh.text()).toBe(ready(START, false));
    expect(resumed.text()).toBe(ready(idOf(7), true));
  });

  it('then writes the frames after its start and before the horizon, oldest first, each as the feed gave it', async () => {
    const feed = new FakeFeed();
    feed.record(1, 3);
    const { text } = open(feed);
    await settle();

    expect(text()).toBe(ready(START, false) + frames(1, 3));
    expect(feed.reads[0]).toEqual({ after: START, before: LATER, limit: BATCH });
  });

  it('resumes after the id it was opened at: nothing up to it again', async () => {
    const feed = new FakeFeed();
    feed.record(1, 4);
    const { text } = open(feed, { position: idOf(2), resumed: true });
    await settle();

    expect(text()).toBe(ready(idOf(2), true) + frames(3, 4));
  });

  it('holds back what the horizon has not passed, and writes it once the horizon has, after the last id written', async () => {
    const feed = new FakeFeed();
    feed.record(1, 4);
    feed.horizonIs = { ts: at(3), lag_seconds: 0, now: at(3) };
    const { text } = open(feed);
    await settle();
    expect(text()).toBe(ready(START, false) + frames(1, 2));

    feed.horizonIs = { ts: LATER, lag_seconds: 0, now: LATER };
    await advance(5000);
    expect(text()).toBe(ready(START, false) + frames(1, 4));
    expect(feed.reads.at(-1)).toEqual({ after: idOf(2), before: LATER, limit: BATCH });
  });

  it('reads again at once while batches come full, each after the last id of the one before', async () => {
    const feed = new FakeFeed();
    feed.record(1, 2 * BATCH + 1);
    const { text } = open(feed);
    await settle();

    expect(feed.reads.map((r) => r.after)).toEqual([START, idOf(BATCH), idOf(2 * BATCH)]);
    expect(text()).toBe(ready(START, false) + frames(1, 2 * BATCH + 1));
  });
});

describe('when a stream looks', () => {
  it('looks on its own every poll interval', async () => {
    const feed = new FakeFeed();
    const { text } = open(feed);
    await settle();
    feed.record(1, 1);

    await advance(4999);
    expect(text()).toBe(ready(START, false));
    await advance(1);
    expect(text()).toBe(ready(START, false) + frames(1, 1));
  });

  it('a signal wakes it before its poll', async () => {
    const feed = new FakeFeed();
    const { session, text } = open(feed);
    await settle();
    feed.record(1, 2);

    session.signalled({ domain_id: 1, platform: 'hackerone' });
    await settle();
    expect(text()).toBe(ready(START, false) + frames(1, 2));
  });

  it.each([
    ['a domain', { domainId: 1 }, { domain_id: 2, platform: 'hackerone' }],
    ['a platform', { platform: 'hackerone' }, { domain_id: 1, platform: 'bugcrowd' }],
  ])(
    'a stream of %s sleeps through signals for others, and wakes on one that names nothing',
    async (_, filter, other) => {
      const feed = new FakeFeed();
      const { session } = open(feed, { filter });
      await settle();
      const looks = feed.looks.length;

      session.signalled(other);
      await settle();
      expect(feed.looks).toHaveLength(looks);

      session.signalled(null);
      await settle();
      expect(feed.looks).toHaveLength(looks + 1);
    },
  );

  it('never reads twice at once: signals during a read make one more pass after it', async () => {
    const feed = new FakeFeed();
    let release = () => {};
    feed.gate = new Promise<void>((resolve) => (release = resolve));
    const { session, text } = open(feed);
    await settle();
    feed.record(1, 1);
    session.signalled(null);
    session.signalled(null);
    await settle();
    expect(feed.reads).toHaveLength(1);

    feed.gate = null;
    release();
    await settle();
    expect(feed.looks).toHaveLength(2);
    expect(feed.mostReadsAtOnce).toBe(1);
    expect(text()).toBe(ready(START, false) + frames(1, 1));
  });

  it('hosts a signal announced that the horizon holds back: looks again after 100 ms, doubling up to 2 s, until it passes', async () => {
    const feed = new FakeFeed();
    feed.record(1, 1);
    // An open transaction holds the horizon before the event the signal announced, which committed by `now`.
    feed.horizonIs = { ts: at(1), lag_seconds: 0, now: at(2) };
    const { session, text } = open(feed, { env: { ...ENV, STREAM_POLL_SECONDS: 60 } });
    await settle();
    const t0 = Date.now();
    session.signalled({ domain_id: 1, platform: 'hackerone' });
    await settle();

    for (let i = 0; i < 71; i++) await advance(100);
    expect(feed.looks.map((t) => t - t0)).toEqual([0, 0, 100, 300, 700, 1500, 3100, 5100, 7100]);
    expect(text()).toBe(ready(START, false));

    feed.horizonIs = { ts: at(2), lag_seconds: 0, now: at(2) };
    for (let i = 0; i < 20; i++) await advance(100);
    expect(text()).toBe(ready(START, false) + frames(1, 1));
    // Passed: it waits for the next signal or poll again.
    expect(feed.looks.map((t) => t - t0).slice(9)).toEqual([9100]);
    await advance(10_000);
    expect(feed.looks).toHaveLength(10);
  });

  it('looks again at most a poll interval apart when the poll is shorter than 2 s', async () => {
    const feed = new FakeFeed();
    feed.horizonIs = { ts: at(1), lag_seconds: 0, now: at(2) };
    const { session } = open(feed, { env: { ...ENV, STREAM_POLL_SECONDS: 1 } });
    await settle();
    const t0 = Date.now();
    session.signalled(null);
    await settle();

    for (let i = 0; i < 35; i++) await advance(100);
    // Looks at whole seconds are its polls; the others come 100, 200, 400 ms apart, then a poll interval.
    expect(feed.looks.map((t) => t - t0)).toEqual([0, 0, 100, 300, 700, 1000, 1500, 2000, 2500, 3000, 3500]);
  });

  it('tells the lag callback how far behind the horizon is, on every look', async () => {
    const feed = new FakeFeed();
    feed.horizonIs = { ts: LATER, lag_seconds: 75, now: LATER };
    const { lags } = open(feed);
    await settle();
    feed.horizonIs = { ts: LATER, lag_seconds: 80, now: LATER };
    await advance(5000);

    expect(lags).toEqual([75, 80]);
  });
});

describe('heartbeats', () => {
  it('writes a heartbeat comment when nothing was written for a whole interval, and none after a recent write', async () => {
    const feed = new FakeFeed();
    const { session, text } = open(feed);
    await settle();

    await advance(15_000);
    expect(text()).toBe(ready(START, false) + ': heartbeat\n\n');

    await advance(5_000); // t = 20 s: a host
    feed.record(1, 1);
    session.signalled(null);
    await settle();
    await advance(10_000); // t = 30 s: written 10 s ago
    expect(text()).toBe(ready(START, false) + ': heartbeat\n\n' + frames(1, 1));

    await advance(15_000); // t = 45 s
    expect(text()).toBe(ready(START, false) + ': heartbeat\n\n' + frames(1, 1) + ': heartbeat\n\n');
  });
});

describe('slow readers, errors and the end', () => {
  it('waits for a slow reader to drain the body before it reads the next batch', async () => {
    const feed = new FakeFeed();
    feed.padding = 200; // a batch is far more than the body buffers
    feed.record(1, 3 * BATCH);
    const { readBody, text } = open(feed, { read: false });
    await settle();
    expect(feed.reads).toHaveLength(1);

    readBody();
    await settle();
    expect(feed.reads.map((r) => r.after)).toEqual([START, idOf(BATCH), idOf(2 * BATCH), idOf(3 * BATCH)]);
    expect(text()).toBe(ready(START, false) + frames(1, 3 * BATCH, 200));
  });

  it('stops when the client goes away while it waits on a slow reader: no more reads, no warning, no timer left', async () => {
    const feed = new FakeFeed();
    feed.padding = 200;
    feed.record(1, 3 * BATCH);
    const { session, warnings } = open(feed, { read: false });
    await settle();

    session.body.destroy();
    await settle();
    await advance(60_000);
    expect(feed.reads).toHaveLength(1);
    expect(warnings).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a feed that fails: one warning, then tries again from the same position; warns anew only after a success', async () => {
    const feed = new FakeFeed();
    feed.failure = new Error('connection refused');
    const { text, warnings } = open(feed);
    await settle();
    await advance(5000);
    expect(warnings).toEqual(['a stream could not read new hosts: connection refused']);

    feed.failure = null;
    feed.record(1, 1);
    await advance(5000);
    expect(text()).toBe(ready(START, false) + frames(1, 1));
    expect(feed.reads.map((r) => r.after)).toEqual([START]);

    feed.failure = new Error('timeout');
    await advance(5000);
    expect(warnings).toEqual([
      'a stream could not read new hosts: connection refused',
      'a stream could not read new hosts: timeout',
    ]);
  });

  it('end(): the body ends after what was written, nothing is read after, and no timer is left', async () => {
    const feed = new FakeFeed();
    feed.record(1, 1);
    const { session, text } = open(feed);
    await settle();
    const ended = new Promise((resolve) => session.body.once('end', resolve));
    const closed = new Promise((resolve) => session.body.once('close', resolve));

    session.end();
    session.end();
    await Promise.all([ended, closed]);
    const reads = feed.reads.length;
    await advance(60_000);
    expect(text()).toBe(ready(START, false) + frames(1, 1));
    expect(feed.reads).toHaveLength(reads);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('end() during a read: what the read brings is not written, and nothing fails', async () => {
    const feed = new FakeFeed();
    let answer = () => {};
    const { session, text, warnings } = open(feed);
    await settle();
    feed.record(1, 1);
    feed.gate = new Promise<void>((resolve) => (answer = resolve));
    session.signalled(null);
    await settle();

    session.end();
    answer();
    await settle();
    expect(text()).toBe(ready(START, false));
    expect(warnings).toEqual([]);
    expect(session.body.writableEnded).toBe(true);
  });
});
