import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostStore } from '../src/hosts/store/host-store.js';
import { seedDomain } from './fixtures/data.js';
import { LoopbackDns } from './fixtures/dns-server.js';
import { SseClient } from './fixtures/sse.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { NEVER, tickUntilIdle } from './fixtures/worker.js';

type Event = { type: string; host: string; after: unknown };

describe('wildcard zones', () => {
  let dns: LoopbackDns;
  let t: TestApp;
  let auth: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'sm-wild-'));

  beforeAll(async () => {
    dns = await new LoopbackDns().start();
    const words = join(dir, 'words.txt');
    writeFileSync(words, ['www', 'api.dev', 'x.dev', 'mail.dev', 'nothing'].join('\n'));
    t = await startTestApp({
      WORKER: 'on',
      WORKER_CRON: NEVER,
      SCAN_SOURCES: ['dns'],
      DNS_WORDLIST: words,
      RESOLVE: 'on',
      DNS_SERVERS: [dns.address],
      DNS_TIMEOUT_MS: 300,
      STREAM_HEARTBEAT_SECONDS: 1,
    });
    auth = bearer(await t.token(['read']));
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds a sub-zone wildcard that brute force ran into, flags its echoes, and keeps them out of the feeds', async () => {
    dns.wildcards.set('dev.wild.test', ['192.0.2.80']); // every name under dev.wild.test answers
    dns.records.set('www.wild.test', ['192.0.2.1']);
    dns.records.set('mail.dev.wild.test', ['192.0.2.81']); // a host of its own inside the wildcard zone
    await seedDomain(t, { domain: 'wild.test', platform: 'hackerone' });
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 4 }]);

    type Row = { host: string; wildcard: boolean };
    const list = async (query: string) =>
      ((await t.get(`/domains/wild.test/subdomains?${query}&fields=wildcard`, auth)).body.data as Row[])
        .map((r) => [r.host, r.wildcard])
        .sort();
    expect(await list('')).toEqual([
      ['api.dev.wild.test', true],
      ['mail.dev.wild.test', false],
      ['www.wild.test', false],
      ['x.dev.wild.test', true],
    ]);
    expect(await list('wildcard=only')).toEqual([
      ['api.dev.wild.test', true],
      ['x.dev.wild.test', true],
    ]);
    expect((await list('wildcard=exclude')).map(([h]) => h)).toEqual(['mail.dev.wild.test', 'www.wild.test']);

    const feed = async (path: string) => ((await t.get(path, auth)).body.data as Row[]).map((r) => r.host).sort();
    expect(await feed('/subdomains/new')).toEqual(['mail.dev.wild.test', 'www.wild.test']);
    expect(await feed('/domains/wild.test/subdomains/new')).toEqual(['mail.dev.wild.test', 'www.wild.test']);
    expect(await feed('/platforms/hackerone/subdomains/new')).toEqual(['mail.dev.wild.test', 'www.wild.test']);
    expect(await feed('/subdomains/new?wildcard=include')).toHaveLength(4);

    const events = (await t.get('/events?domain=wild.test', auth)).body.data as Event[];
    expect(
      events
        .filter((e) => e.type === 'host_new')
        .map((e) => e.host)
        .sort(),
    ).toEqual(['mail.dev.wild.test', 'www.wild.test']);
    expect(events.filter((e) => e.type === 'wildcard_detected').map((e) => e.after)).toEqual([
      { zone: '*.dev.wild.test', answers: ['192.0.2.80'] },
    ]);

    // The stream, replayed from the start, carries the same two.
    const stream = await SseClient.open(
      `${t.baseUrl}/api/v1/subdomains/stream?domain=wild.test&last_event_id=1970-01-01T00:00:00.000000Z_0`,
      auth,
    );
    try {
      await stream.waitForEvents(2, 15_000);
      await stream.quiet();
      expect(
        stream
          .hosts<{ host: string }>()
          .map((h) => h.host)
          .sort(),
      ).toEqual(['mail.dev.wild.test', 'www.wild.test']);
    } finally {
      await stream.close();
    }
    // A second scan asks each zone again, and raises nothing new.
    await t.post('/scans', { domain: 'wild.test' }, bearer(await t.token(['write'])));
    await tickUntilIdle(t);
    const again = (await t.get('/events?domain=wild.test&type=wildcard_detected', auth)).body.data as Event[];
    expect(again).toHaveLength(1);

    // The CT logs name one of the echoes: found by more than guesses, it is a host like any other from then on.
    const [{ id }] = await t.dataSource.query<{ id: number }[]>(`SELECT id FROM domains WHERE domain = 'wild.test'`);
    await t.app
      .get(HostStore)
      .transaction((w) => w.seen(id, `SELECT $2::text AS host, 1::smallint AS sources`, ['api.dev.wild.test']));
    expect(await list('wildcard=only')).toEqual([['x.dev.wild.test', true]]);
    const named = ['api.dev.wild.test', 'mail.dev.wild.test', 'www.wild.test'];
    expect(await feed('/subdomains/new')).toEqual(named);
    expect(await feed('/domains/wild.test/subdomains/new')).toEqual(named);
    expect(await feed('/platforms/hackerone/subdomains/new')).toEqual(named);
    const row = (await t.get('/hosts/api.dev.wild.test', auth)).body.data as { sources: string[]; wildcard: boolean };
    expect(row).toMatchObject({ sources: ['ct', 'dns'], wildcard: false });
  });
});
