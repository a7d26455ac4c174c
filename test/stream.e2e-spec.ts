import { EventSource } from 'eventsource';
import fc from 'fast-check';
import pg from 'pg';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { addHosts, hoursAgo, seedDomain } from './fixtures/data.js';
import { SseClient } from './fixtures/sse.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { crtshWorker, scanThroughApi } from './fixtures/worker.js';
import { NewHostSignal } from '../src/events/new-host-signal.js';
import { ApiKeysService, MAX_ACTIVE_KEYS_PER_USER } from '../src/auth/api-keys.service.js';
import { UsersService } from '../src/users/users.service.js';

const EVENT_ID = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)_(\d+)$/;

/**
 * GET /subdomains/stream against real scans (the worker and a loopback crt.sh). Streams here only wake on a
 * scan's signal: their own poll is set to an hour, so an event that arrives proves the signal carried it.
 */
describe('GET /subdomains/stream', () => {
  let t: TestApp;
  let crt: LoopbackCrtsh;
  let read: Record<string, string>;
  let write: Record<string, string>;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    t = await startTestApp({
      ...crtshWorker(crt),
      STREAM_POLL_SECONDS: 3600,
      STREAM_HEARTBEAT_SECONDS: 1,
      // Tests here open streams back to back on one key; the per-key cap has a test of its own.
      STREAM_MAX_PER_KEY: 100,
    });
    read = bearer(await t.token(['read']));
    write = bearer(await t.token(['read', 'write']));
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
  });

  const open = async (query = '', headers: Record<string, string> = read) => {
    const client = await SseClient.open(`${t.baseUrl}/api/v1/subdomains/stream${query}`, headers);
    clients.push(client);
    return client;
  };
  const scan = (domain: string, names: string[]) => scanThroughApi(t, crt, write, domain, names);
  /** The domain's hosts as the keyset orders them, with their event ids. */
  const keyset = async (domain: string) =>
    (
      await t.dataSource.query<{ host: string; id: string }[]>(
        `SELECT h.host, to_char(h.first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '_' || h.id AS id
           FROM hosts h JOIN domains d ON d.id = h.domain_id WHERE d.domain = $1 ORDER BY h.first_seen_at, h.id`,
        [domain],
      )
    ).map((r) => ({ host: r.host, id: r.id }));

  it('answers the contract JSON errors before a stream opens', async () => {
    await seedDomain(t, { domain: 'known.com', platform: 'hackerone' });
    const cases: [string, Record<string, string>, number, string][] = [
      ['', {}, 401, 'missing_token'],
      ['', { ...read, 'last-event-id': 'yesterday' }, 400, 'invalid_query'],
      ['?last_event_id=2026-11-21T07:08:00Z_1', read, 400, 'invalid_query'],
      ['?domain=Not%20A%20Domain', read, 400, 'invalid_domain'],
      ['?domain=untracked.com', read, 404, 'not_found'],
      ['?platform=nope', read, 400, 'invalid_query'],
      ['?platform=hackerone&domain=known.com', read, 400, 'invalid_query'],
    ];
    for (const [query, headers, status, code] of cases) {
      const client = await open(query, headers);
      const body = client.body as { error: { code: string; message: string }; request_id: string };
      expect({ query, status: client.status, code: body?.error?.code }).toEqual({ query, status, code });
      expect(body.error.message.length).toBeGreaterThan(0);
      expect(body.request_id).toBe(client.headers.get('x-request-id'));
    }
  });

  it('answers 503 service_unavailable beyond STREAM_MAX_CLIENTS, and serves again once a stream ends', async () => {
    const small = await startTestApp({ STREAM_MAX_CLIENTS: 1 });
    try {
      const key = bearer(await small.token(['read']));
      const url = `${small.baseUrl}/api/v1/subdomains/stream`;
      const first = await SseClient.open(url, key);
      expect(first.status).toBe(200);
      const second = await SseClient.open(url, key);
      expect(second.status).toBe(503);
      expect(second.body).toMatchObject({ error: { code: 'service_unavailable' } });
      expect(second.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      await first.close();
      const third = await waitFor('a free place', async () => {
        const c = await SseClient.open(url, key);
        if (c.status === 200) return c;
      });
      await third.close();
    } finally {
      await small.close();
    }
  });

  it('answers 503 with Retry-After beyond STREAM_MAX_PER_KEY, serves other keys meanwhile, and frees a place when a stream ends', async () => {
    const small = await startTestApp({ STREAM_MAX_PER_KEY: 2, STREAM_MAX_CLIENTS: 10 });
    const opened: SseClient[] = [];
    const connect = async (headers: Record<string, string>) => {
      const client = await SseClient.open(`${small.baseUrl}/api/v1/subdomains/stream`, headers);
      opened.push(client);
      return client;
    };
    try {
      const greedy = await small.token(['read']);
      const other = bearer(await small.token(['read']));
      const held = [await connect(bearer(greedy)), await connect({ 'x-api-key': greedy })];
      expect(held.map((c) => c.status)).toEqual([200, 200]);

      // The same key, however it is sent, gets no third place; the refusal is the contract's error.
      for (const headers of [bearer(greedy), { 'x-api-key': greedy }]) {
        const refused = await connect(headers);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(refused.body).toEqual({
          error: { code: 'service_unavailable', message: expect.stringMatching(/key/) },
          request_id: refused.headers.get('x-request-id'),
        });
      }
      // Another key still finds places.
      expect((await connect(other)).status).toBe(200);
      expect((await connect(other)).status).toBe(200);

      // A stream whose client went away gives its place back.
      await held[0].close();
      const again = await waitFor('a place for the key once one of its streams ended', async () => {
        const c = await connect(bearer(greedy));
        if (c.status === 200) return c;
      });
      expect(again.status).toBe(200);
    } finally {
      await Promise.all(opened.map((c) => c.close()));
      await small.close();
    }
  });

  it("counts a user's streams over all their keys: more keys win no more places, and other users keep theirs", async () => {
    const small = await startTestApp({ STREAM_MAX_PER_KEY: 2, STREAM_MAX_CLIENTS: 4 });
    const opened: SseClient[] = [];
    const connect = async (token: string) => {
      const client = await SseClient.open(`${small.baseUrl}/api/v1/subdomains/stream`, bearer(token));
      opened.push(client);
      return client;
    };
    try {
      const users = small.app.get(UsersService);
      const keys = small.app.get(ApiKeysService);
      const alice = await users.create('alice@example.com', undefined, 'a long enough password');
      const bob = await users.create('bob@example.com', undefined, 'a long enough password');
      const [a1, a2, a3] = await Promise.all(
        ['one', 'two', 'three'].map(async (n) => (await keys.create(n, alice.id, ['read'])).token),
      );
      const b1 = (await keys.create('one', bob.id, ['read'])).token;

      expect([(await connect(a1)).status, (await connect(a2)).status]).toEqual([200, 200]);
      // Alice's other keys find no place of hers left.
      for (const token of [a1, a2, a3]) {
        const refused = await connect(token);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(refused.body).toEqual({
          error: { code: 'service_unavailable', message: expect.stringMatching(/owner/) },
          request_id: refused.headers.get('x-request-id'),
        });
      }
      // Bob still gets his.
      expect([(await connect(b1)).status, (await connect(b1)).status]).toEqual([200, 200]);
    } finally {
      await Promise.all(opened.map((c) => c.close()));
      await small.close();
    }
  });

  it(`caps a user's active keys at ${MAX_ACTIVE_KEYS_PER_USER}; revoking one makes room`, async () => {
    const users = t.app.get(UsersService);
    const keys = t.app.get(ApiKeysService);
    const carol = await users.create('carol-keys@example.com', undefined, 'a long enough password');
    const made = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_USER; i++) made.push((await keys.create(`k${i}`, carol.id, ['read'])).key);
    await expect(keys.create('one more', carol.id, ['read'])).rejects.toMatchObject({
      code: 'invalid_body',
      message: expect.stringMatching(/at most 25 active keys/),
    });
    await keys.revoke(made[0].id);
    expect((await keys.create('one more', carol.id, ['read'])).token).toMatch(/^sm_live_/);
    // Operator keys belong to no user and are not capped.
    for (let i = 0; i <= MAX_ACTIVE_KEYS_PER_USER; i++) await keys.create(`operator-${i}`, 'operator', ['read']);
  });

  it('answers hostile filters and ids with a stream or the contract error, never a 500', async () => {
    const hostile = fc.oneof(
      fc.constantFrom('', '0', '-1', '%00', '..', '2026-11-21T07:08:00.123456Z_', '9999-99-99T99:99:99.999999Z_1'),
      fc.string({ maxLength: 120 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('platform', 'domain', 'last_event_id'), hostile), { maxLength: 3 }),
        fc.option(fc.string({ maxLength: 60 }).filter((v) => /^[\x20-\x7e]*$/.test(v))),
        async (params, header) => {
          const query = params
            .map(([k, v]) => `${k}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, ''))}`)
            .join('&');
          const client = await open(
            query ? `?${query}` : '',
            header === null ? read : { ...read, 'last-event-id': header },
          );
          await client.close();
          expect([query, header, client.status < 500]).toEqual([query, header, true]);
          if (client.status === 200) expect(client.headers.get('content-type')).toMatch(/^text\/event-stream/);
          else expect((client.body as { request_id: string }).request_id).toBe(client.headers.get('x-request-id'));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('streams the hosts scans record, oldest first, with keyset ids, and a heartbeat when idle', async () => {
    const alpha = await seedDomain(t, { domain: 'alpha.com', platform: 'hackerone' });
    await addHosts(t, alpha, [{ host: 'old.alpha.com', firstSeenAt: hoursAgo(1) }]);
    const client = await open();
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(client.headers.get('cache-control')).toContain('no-cache');
    expect(client.headers.get('x-request-id')).toBeTruthy();

    await scan('alpha.com', ['a.alpha.com', 'b.alpha.com', 'c.alpha.com']);
    const events = await client.waitForEvents(3);
    const expected = (await keyset('alpha.com')).filter((h) => h.host !== 'old.alpha.com');
    expect(events.map((e) => ({ host: JSON.parse(e.data!).host, id: e.id }))).toEqual(expected);
    for (const event of events) {
      expect(event.event).toBe('host');
      const data = JSON.parse(event.data!);
      expect(Object.keys(data).sort()).toEqual(['domain', 'first_seen_at', 'host', 'platform', 'sources']);
      expect(data).toMatchObject({ domain: 'alpha.com', platform: 'hackerone', sources: ['crtsh'] });
      expect(event.id).toBe(`${data.first_seen_at}_${EVENT_ID.exec(event.id!)![2]}`);
    }
    // The same keyset as /subdomains/new: its rows give the same ids.
    const feed = (await t.get('/subdomains/new?limit=3', read)).body.data as { id: string; first_seen_at: string }[];
    expect(feed.map((h) => `${h.first_seen_at}_${h.id}`).reverse()).toEqual(events.map((e) => e.id));

    await client.quiet();
    expect(client.received[0]).toMatchObject({ event: 'ready', id: expect.stringMatching(EVENT_ID) });
    expect(client.ready).toEqual({ after: client.received[0].id, resumed: false });
    expect(client.events).toHaveLength(3);
  });

  it('filters by platform and by domain', async () => {
    await seedDomain(t, { domain: 'beta.com', platform: 'bugcrowd' });
    await seedDomain(t, { domain: 'gamma.com', platform: 'hackerone' });
    const all = await open();
    const bugcrowd = await open('?platform=bugcrowd');
    const gamma = await open('?domain=gamma.com');
    await scan('beta.com', ['x.beta.com']);
    await scan('gamma.com', ['y.gamma.com', 'z.gamma.com']);
    await all.waitForEvents(3);
    await bugcrowd.waitForEvents(1);
    await gamma.waitForEvents(2);
    await Promise.all([all.quiet(), bugcrowd.quiet(), gamma.quiet()]);
    const names = (client: SseClient) => client.hosts().map((h) => h.host);
    expect(names(all)).toEqual(['x.beta.com', ...(await keyset('gamma.com')).map((h) => h.host)]);
    expect(names(bugcrowd)).toEqual(['x.beta.com']);
    expect(names(gamma).sort()).toEqual(['y.gamma.com', 'z.gamma.com']);
  });

  it('resumes after Last-Event-ID (header or query) with every host once, nothing skipped or repeated', async () => {
    await seedDomain(t, { domain: 'delta.com', platform: 'intigriti' });
    const first = await open('?domain=delta.com');
    await scan('delta.com', ['d1.delta.com', 'd2.delta.com', 'd3.delta.com']);
    await first.waitForEvents(3);
    // The client dropped after the second event; three more hosts are recorded while it is away.
    const resumeAt = first.events[1].id!;
    await first.close();
    await scan('delta.com', [
      'd1.delta.com',
      'd2.delta.com',
      'd3.delta.com',
      'd4.delta.com',
      'd5.delta.com',
      'd6.delta.com',
    ]);

    const all = await keyset('delta.com');
    expect(all).toHaveLength(6);
    const byHeader = await open('?domain=delta.com', { ...read, 'last-event-id': resumeAt });
    const byQuery = await open(`?domain=delta.com&last_event_id=${encodeURIComponent(resumeAt)}`);
    for (const resumed of [byHeader, byQuery]) {
      await resumed.waitForEvents(4);
      await resumed.quiet();
      const seen = [...first.events.slice(0, 2), ...resumed.events].map((e) => ({
        host: JSON.parse(e.data!).host,
        id: e.id,
      }));
      expect(seen).toEqual(all);
    }
    // Later hosts follow on the resumed stream as on any other.
    await scan('delta.com', ['d7.delta.com']);
    await byHeader.waitForEvents(5);
    await byHeader.quiet();
    expect(byHeader.hosts().map((h) => h.host)).toEqual((await keyset('delta.com')).slice(2).map((h) => h.host));
  });

  it('gives its starting position as the ready event, so a client that reconnects before any host misses nothing', async () => {
    await seedDomain(t, { domain: 'theta.com', platform: 'intigriti' });
    const idle = await open('?domain=theta.com');
    const ready = await waitFor('the ready event', () => idle.ready);
    expect(idle.received).toEqual([{ id: ready.after, event: 'ready', data: expect.any(String) }]);
    expect(ready).toEqual({
      after: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z_0$/),
      resumed: false,
    });
    expect(idle.lastEventId).toBe(ready.after);
    await idle.close();
    await scan('theta.com', ['t1.theta.com', 't2.theta.com']);
    const back = await open('?domain=theta.com', { ...read, 'last-event-id': idle.lastEventId! });
    expect(await waitFor('the resumed ready event', () => back.ready)).toEqual({ after: ready.after, resumed: true });
    await back.waitForEvents(2);
    await back.quiet();
    expect(back.hosts().map((h) => h.host)).toEqual((await keyset('theta.com')).map((h) => h.host));
  });

  it('an EventSource (the eventsource package) cut off before any host reconnects with Last-Event-ID and misses nothing', async () => {
    await seedDomain(t, { domain: 'iota.com', platform: 'intigriti' });
    // Each connection the client makes: the Last-Event-ID it sent. A reconnect waits for `reconnect` to open.
    const sent: (string | null)[] = [];
    let reconnect = Promise.resolve();
    let letReconnect = () => {};
    const source = new EventSource(`${t.baseUrl}/api/v1/subdomains/stream?domain=iota.com`, {
      fetch: async (url, init) => {
        sent.push(init.headers['Last-Event-ID'] ?? null);
        await reconnect;
        return fetch(url, { ...init, headers: { ...init.headers, ...read } });
      },
    });
    const readyIds: string[] = [];
    const hosts: string[] = [];
    source.addEventListener('ready', (e) => readyIds.push(e.lastEventId));
    source.addEventListener('host', (e) => hosts.push((JSON.parse(e.data) as { host: string }).host));
    const state = () => JSON.stringify({ sent, readyIds, hosts });
    try {
      await waitFor('the ready event', () => readyIds[0], { ms: 15_000, context: state });
      // The connection drops (a restart, a proxy) and stays down while a scan records a host.
      reconnect = new Promise((resolve) => (letReconnect = resolve));
      t.app.getHttpServer().closeAllConnections();
      await waitFor('the client to reconnect', () => (sent.length === 2 ? true : undefined), {
        ms: 15_000,
        context: state,
      });
      await scan('iota.com', ['i1.iota.com']);
      letReconnect();
      await waitFor('the host recorded while the client was away', () => hosts[0], { ms: 15_000, context: state });
      expect(sent).toEqual([null, readyIds[0]]);
      expect(readyIds).toEqual([readyIds[0], readyIds[0]]);
      expect(hosts).toEqual(['i1.iota.com']);
    } finally {
      letReconnect();
      source.close();
    }
  });

  // Two connections writing at once need the server: the embedded database runs one statement at a time.
  (process.env.TEST_DATABASE_URL ? it : it.skip)(
    'holds events behind a transaction still writing hosts, so a slow commit is never skipped',
    async () => {
      // The slow writer adds to another domain: its row lock on that domain would keep the worker from
      // claiming a scan of the same one.
      const slowDomain = await seedDomain(t, { domain: 'epsilon-slow.com', platform: 'yeswehack' });
      await seedDomain(t, { domain: 'epsilon.com', platform: 'yeswehack' });
      const client = await open('?platform=yeswehack');
      const slow = new pg.Client({ connectionString: t.databaseUrl });
      await slow.connect();
      try {
        // A writer that began first (first_seen_at = its start) and commits last.
        await slow.query('BEGIN');
        await slow.query('SELECT pg_current_xact_id()');
        await slow.query(
          `INSERT INTO hosts (domain_id, host, first_seen_at, last_seen_at) VALUES ($1, 'slow.epsilon-slow.com', now(), now())`,
          [slowDomain.id],
        );
        // Past the 10 s in which any young transaction counts as a writer: only its transaction id holds it now.
        await new Promise((r) => setTimeout(r, 10_500));
        await scan('epsilon.com', ['fast.epsilon.com']);
        // The scan signalled and the stream looked; its host is newer than the open writer's start, so it waits.
        await t.app.get(NewHostSignal).publish(slowDomain.id);
        await client.quiet();
        expect(client.events).toEqual([]);
        await slow.query('COMMIT');
      } finally {
        await slow.end();
      }
      await t.app.get(NewHostSignal).publish(slowDomain.id);
      await client.waitForEvents(2);
      await client.quiet();
      expect(client.hosts().map((h) => h.host)).toEqual(['slow.epsilon-slow.com', 'fast.epsilon.com']);
    },
  );

  (process.env.TEST_DATABASE_URL ? it : it.skip)(
    'delivers hosts a signal announced once the transaction that held them back ends, with no further signal',
    async () => {
      await seedDomain(t, { domain: 'zeta.com', platform: 'intigriti' });
      const client = await open('?platform=intigriti');
      const other = new pg.Client({ connectionString: t.databaseUrl });
      await other.connect();
      try {
        // A transaction that began before the scan's and writes no host: it holds the horizon while it is
        // open, and its end signals nothing. With a poll of an hour, only the stream's own second look finds them.
        await other.query('BEGIN');
        await other.query('SELECT pg_current_xact_id()');
        await scan('zeta.com', ['one.zeta.com', 'two.zeta.com']);
        await client.quiet();
        expect(client.events).toEqual([]);
        await other.query('COMMIT');
      } finally {
        await other.end();
      }
      await client.waitForEvents(2, 15_000);
      expect(
        client
          .hosts()
          .map((h) => h.host)
          .sort(),
      ).toEqual(['one.zeta.com', 'two.zeta.com']);
    },
  );
});
