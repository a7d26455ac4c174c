import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { SCAN_LATER, seedDomain } from './fixtures/data.js';
import { LoopbackDns } from './fixtures/dns-server.js';
import { SseClient } from './fixtures/sse.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { NEVER, tickUntilIdle } from './fixtures/worker.js';
import { HostStore } from '../src/hosts/store/host-store.js';
import { WebhookDeliveryService } from '../src/notify/webhook-delivery.service.js';
import { WebhooksService } from '../src/notify/webhooks.service.js';
import { DeliveriesRepository } from '../src/notify/deliveries.repository.js';
import { toEventDto } from '../src/events/dto/event.dto.js';
import { Receiver } from './fixtures/webhook-receiver.js';

type Event = {
  id: string;
  type: string;
  host: string;
  domain: string;
  platform: string;
  at: string;
  before: unknown;
  after: unknown;
};

const resolved = (a: string[], cname: string[] = [], aaaa: string[] = []) => ({
  status: 'resolved' as const,
  a,
  aaaa,
  cname,
});
const NXDOMAIN = { status: 'nxdomain', a: [], aaaa: [], cname: [] };

describe('host knowledge: DNS answers, changes, the change feed and one host', () => {
  let crt: LoopbackCrtsh;
  let dns: LoopbackDns;
  let receiver: Receiver;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    dns = await new LoopbackDns().start();
    receiver = await new Receiver().start();
    t = await startTestApp({
      CT_WEBHOOK_GATHER_SECONDS: 1,
      WORKER: 'on',
      WORKER_CRON: NEVER,
      CRTSH_URL: crt.url,
      SCAN_SOURCES: ['crtsh'],
      RESOLVE: 'on',
      DNS_SERVERS: [dns.address],
      DNS_TIMEOUT_MS: 300,
      SOURCE_ATTEMPTS: 1,
    });
    auth = bearer(await t.token(['read', 'write']));
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
    await dns.close();
    await receiver.close();
  });

  /** Every delivery to a path once the worker has sent what is due, parsed. */
  async function delivered(path: string): Promise<{ event: string; body: Record<string, unknown> }[]> {
    const deliveries = t.app.get(WebhookDeliveryService);
    // Gathering deliveries are due a second after they were created.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    deliveries.kick();
    await deliveries.settled();
    return receiver.at(path).map((r) => ({
      event: String(r.headers['x-subdomain-monitor-event']),
      body: JSON.parse(r.body) as Record<string, unknown>,
    }));
  }

  /** Every event of a domain, walked page by page with `after`. */
  async function walk(query: string, limit = 3): Promise<Event[]> {
    const events: Event[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 200; pages++) {
      const res = await t.get(`/events?${query}&limit=${limit}${after ? `&after=${after}` : ''}`, auth);
      expect(res.status).toBe(200);
      events.push(...(res.body.data as Event[]));
      expect(res.body.meta.count).toBe(res.body.data.length);
      after = res.body.meta.after;
      if (!res.body.meta.has_more) return events;
    }
    throw new Error('the walk did not end');
  }

  /**
   * The events of a walk past its first `seen`, once there are `count` of them (≤ 15 s): a page stops short of the
   * horizon, and any transaction of the app still open that began before a scan's commit (or under 10 s ago, in
   * case it writes) holds the scan's events back until it ends (HORIZON_SQL), as it would for any client.
   */
  async function eventsPast(query: string, seen: number, count: number, limit?: number): Promise<Event[]> {
    for (const deadline = Date.now() + 15_000; ;) {
      const events = (await walk(query, limit)).slice(seen);
      if (events.length >= count || Date.now() > deadline) return events;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const rescan = async (domain: string) => {
    expect((await t.post('/scans', { domain }, auth)).status).toBe(202);
    const outcomes = await tickUntilIdle(t);
    expect(outcomes.at(-1)).toMatchObject({ status: 'success' });
    return outcomes.at(-1);
  };

  /**
   * A tracked domain of its own, scanned once: a.D with two A records (given unsorted) and one AAAA, b.D an alias
   * through a chain of two CNAMEs, c.D an alias that dangles, d.D nothing (so never recorded).
   */
  async function scannedDomain(domain: string, tracked?: () => Promise<unknown>) {
    await seedDomain(t, { domain, platform: 'hackerone' });
    await tracked?.();
    crt.names.set(
      domain,
      ['a', 'b', 'c', 'd'].map((l) => `${l}.${domain}`),
    );
    dns.records.set(`a.${domain}`, ['192.0.2.10', '192.0.2.2']);
    dns.aaaa.set(`a.${domain}`, ['2001:db8::1']);
    dns.cnames.set(`b.${domain}`, 'edge.cdn.test');
    dns.cnames.set('edge.cdn.test', 'origin.cdn.test');
    dns.records.set('origin.cdn.test', ['203.0.113.5']);
    dns.cnames.set(`c.${domain}`, 'gone.cloud.test'); // dangles: the target does not exist
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 3 }]);
  }

  it('keeps each host’s answer (addresses sorted, the CNAME chain in order) and shows it on host rows', async () => {
    await scannedDomain('know.test');

    const rows = (await t.get('/domains/know.test/subdomains?fields=dns,takeover', auth)).body.data as {
      host: string;
      dns: object;
    }[];
    const dnsOf = Object.fromEntries(rows.map((r) => [r.host, r.dns]));
    expect(Object.keys(dnsOf).sort()).toEqual(['a.know.test', 'b.know.test', 'c.know.test']);
    expect(dnsOf['a.know.test']).toEqual({
      ...resolved(['192.0.2.2', '192.0.2.10'], [], ['2001:db8::1']),
      resolved_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
    expect(dnsOf['b.know.test']).toMatchObject(resolved(['203.0.113.5'], ['edge.cdn.test', 'origin.cdn.test']));
    expect(dnsOf['c.know.test']).toMatchObject({ status: 'nxdomain', a: [], aaaa: [], cname: ['gone.cloud.test'] });

    const search = (await t.get('/subdomains/search?q=a.know&fields=dns', auth)).body.data;
    expect(search.map((r: { host: string; dns: object }) => [r.host, r.dns])).toEqual([
      ['a.know.test', dnsOf['a.know.test']],
    ]);
    const feed = (await t.get('/subdomains/new?fields=dns', auth)).body.data as { host: string; dns: object }[];
    expect(feed.find((r) => r.host === 'b.know.test')?.dns).toEqual(dnsOf['b.know.test']);

    const events = await walk('domain=know.test');
    expect(events.map((e) => [e.type, e.host, e.domain, e.platform]).sort()).toEqual([
      ['host_new', 'a.know.test', 'know.test', 'hackerone'],
      ['host_new', 'b.know.test', 'know.test', 'hackerone'],
      ['host_new', 'c.know.test', 'know.test', 'hackerone'],
    ]);
  });

  it('tells a webhook and a stream that ask for fields what a scan learned of each new host', async () => {
    const webhooks = t.app.get(WebhooksService);
    const ids: string[] = [];
    await scannedDomain('fields.test', async () => {
      ids.push(await webhooks.add({ url: `${receiver.url}/fields`, domains: 'fields.test', fields: 'ips,cname,dns' }));
      ids.push(await webhooks.add({ url: `${receiver.url}/plain`, domains: 'fields.test' }));
    });
    const stream = await SseClient.open(
      `${t.baseUrl}/api/v1/subdomains/stream?domain=fields.test&fields=ips,status&last_event_id=1970-01-01T00:00:00.000000Z_0`,
      auth,
    );
    try {
      const [told] = await delivered('/fields');
      const hosts = told.body.hosts as Record<string, unknown>[];
      const a = hosts.find((h) => h.host === 'a.fields.test')!;
      // The webhook's fields after the host's own keys, in the order it named them.
      expect(Object.keys(a)).toEqual(['host', 'first_seen_at', 'ips', 'cname', 'dns']);
      expect(a).toMatchObject({
        ips: ['192.0.2.2', '192.0.2.10', '2001:db8::1'],
        cname: [],
        dns: resolved(['192.0.2.2', '192.0.2.10'], [], ['2001:db8::1']),
      });
      expect(hosts.find((h) => h.host === 'b.fields.test')).toMatchObject({
        ips: ['203.0.113.5'],
        cname: ['edge.cdn.test', 'origin.cdn.test'],
      });
      const [bare] = await delivered('/plain');
      expect((bare.body.hosts as object[]).map((h) => Object.keys(h))).toEqual([
        ['host', 'first_seen_at'],
        ['host', 'first_seen_at'],
        ['host', 'first_seen_at'],
      ]);
      // The stream's host events carry what is known when each is sent (here, replayed after the scan).
      const events = await stream.waitForEvents(3, 15_000);
      const byHost = Object.fromEntries(events.map((e) => [JSON.parse(e.data!).host, JSON.parse(e.data!)]));
      expect(Object.keys(byHost['a.fields.test'])).toEqual([
        'host',
        'domain',
        'platform',
        'first_seen_at',
        'sources',
        'ips',
        'status',
      ]);
      expect(byHost['a.fields.test']).toMatchObject({ ips: ['192.0.2.2', '192.0.2.10', '2001:db8::1'], status: null });
    } finally {
      await stream.close();
      for (const id of ids) await webhooks.remove(id);
    }
    const refused = await t.post('/webhooks', { url: `${receiver.url}/x`, fields: ['dns', 'bogus'] }, auth);
    expectError(refused, 400, 'invalid_body');
    expect(refused.body.error.message).toContain('fields must be a list of dns, http, takeover');
    expectError(await t.get('/subdomains/stream?fields=ips,bogus', auth), 400, 'invalid_query');
    expectError(await t.get('/subdomains/stream?types=host_new&fields=ips', auth), 400, 'invalid_query');
  });

  it('records a change of answer or status once, and nothing when the same answer comes again', async () => {
    await scannedDomain('change.test');
    const before = await walk('domain=change.test');
    dns.records.set('a.change.test', ['198.51.100.7']); // new addresses
    await rescan('change.test');
    await rescan('change.test'); // the same answers again: nothing more

    const changes = await eventsPast('domain=change.test', before.length, 1);
    expect(changes).toEqual([
      {
        id: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z_e\d+$/),
        type: 'dns_changed',
        host: 'a.change.test',
        domain: 'change.test',
        platform: 'hackerone',
        at: expect.any(String),
        before: resolved(['192.0.2.2', '192.0.2.10'], [], ['2001:db8::1']),
        after: resolved(['198.51.100.7'], [], ['2001:db8::1']),
      },
    ]);
  });

  it('records a host that stops resolving as dns_changed and host_gone, and its return as host_back', async () => {
    await scannedDomain('gone.test');
    const before = await walk('domain=gone.test');
    dns.records.delete('a.gone.test');
    dns.aaaa.delete('a.gone.test');
    await rescan('gone.test');
    dns.records.set('a.gone.test', ['198.51.100.7']);
    await rescan('gone.test');

    const changes = await eventsPast('domain=gone.test', before.length, 4, 2);
    expect(changes.map((e) => [e.type, e.host, e.before, e.after])).toEqual([
      ['dns_changed', 'a.gone.test', resolved(['192.0.2.2', '192.0.2.10'], [], ['2001:db8::1']), NXDOMAIN],
      ['host_gone', 'a.gone.test', null, null],
      ['host_back', 'a.gone.test', null, null],
      ['dns_changed', 'a.gone.test', NXDOMAIN, resolved(['198.51.100.7'])],
    ]);
    // The feed's order is the ids' order, and the type filter keeps the same ids.
    const gone = await walk('domain=gone.test&type=host_gone,host_back', 1);
    expect(gone.map((e) => e.id)).toEqual(changes.filter((e) => e.type.startsWith('host_')).map((e) => e.id));
  });

  it('sends webhooks the change types they subscribe to, as /events shows them, and new hosts to host_new', async () => {
    await scannedDomain('hooked.test');
    const hooks = t.app.get(WebhooksService);
    await hooks.add({ url: `${receiver.url}/changes`, domains: 'hooked.test', types: 'host_gone,dns_changed' });
    await hooks.add({ url: `${receiver.url}/chat`, domains: 'hooked.test', types: 'dns_changed', format: 'slack' });
    await hooks.add({ url: `${receiver.url}/new`, domains: 'hooked.test' });
    const before = await walk('domain=hooked.test');
    dns.records.delete('a.hooked.test');
    dns.aaaa.delete('a.hooked.test');
    crt.names.get('hooked.test')!.push('e.hooked.test');
    dns.records.set('e.hooked.test', ['192.0.2.99']);
    await rescan('hooked.test');

    const changes = await eventsPast('domain=hooked.test', before.length, 3);
    expect(changes.map((e) => [e.type, e.host])).toEqual([
      ['host_new', 'e.hooked.test'],
      ['dns_changed', 'a.hooked.test'],
      ['host_gone', 'a.hooked.test'],
    ]);
    const sent = await delivered('/changes');
    expect(sent.map((d) => d.event)).toEqual(sent.map(() => 'host_events'));
    expect(sent.flatMap((d) => d.body.events as Event[])).toEqual(changes.slice(1));
    expect(sent[0].body).toMatchObject({ event: 'host_events', domain: 'hooked.test', platform: 'hackerone' });
    expect(sent.map((d) => d.body.event_count)).toEqual(sent.map((d) => (d.body.events as Event[]).length));

    const [chat] = await delivered('/chat');
    expect(chat.event).toBe('host_events');
    expect(chat.body).toEqual({
      text:
        '1 change on hooked.test (hackerone)\n```\n' +
        'dns_changed a.hooked.test: 192.0.2.2 192.0.2.10 2001:db8::1 → nxdomain\n```',
      unfurl_links: false,
      unfurl_media: false,
    });
    const news = await delivered('/new');
    expect(news.map((d) => [d.event, (d.body.hosts as { host: string }[]).map((h) => h.host)])).toEqual([
      ['new_hosts', ['e.hooked.test']],
    ]);
    await expect(hooks.add({ url: `${receiver.url}/x`, types: 'dns_changed,host_moved' })).rejects.toThrow(
      /types must be a list of host_new, host_gone/,
    );
  });

  it('records a server failure as servfail, and keeps the last answer through a timeout', async () => {
    await scannedDomain('flaky.test');
    const before = await walk('domain=flaky.test&type=dns_changed');
    dns.servfail = true;
    await rescan('flaky.test');
    dns.servfail = false;
    const servfail = await eventsPast('domain=flaky.test&type=dns_changed', before.length, 3);
    expect(servfail.map((e) => [e.host, (e.after as { status: string }).status]).sort()).toEqual([
      ['a.flaky.test', 'servfail'],
      ['b.flaky.test', 'servfail'],
      ['c.flaky.test', 'servfail'],
    ]);
    await rescan('flaky.test'); // answers again: three changes back
    expect(await eventsPast('domain=flaky.test&type=dns_changed', before.length, 6)).toHaveLength(6);

    const settled = await walk('domain=flaky.test');
    dns.delayMs = 1500; // past DNS_TIMEOUT_MS and its retry: every lookup times out
    try {
      await rescan('flaky.test');
    } finally {
      dns.delayMs = 0;
    }
    expect(await walk('domain=flaky.test')).toEqual(settled);
    const a = (await t.get('/hosts/a.flaky.test', auth)).body.data;
    expect(a.dns).toMatchObject(resolved(['192.0.2.2', '192.0.2.10'], [], ['2001:db8::1']));
    expect(a.is_active).toBe(true);
  });

  it('GET /hosts/{host} shows one host, its answer, and its history newest first back to its arrival', async () => {
    await scannedDomain('one.test');
    dns.records.set('a.one.test', ['198.51.100.7']);
    await rescan('one.test');
    dns.records.delete('a.one.test');
    dns.aaaa.delete('a.one.test');
    await rescan('one.test');
    const res = await t.get('/hosts/a.one.test', auth);
    expect(res.status).toBe(200);
    const host = res.body.data;
    expect(host).toMatchObject({
      host: 'a.one.test',
      domain: 'one.test',
      platform: 'hackerone',
      is_active: false,
      sources: ['crtsh'],
      dns: NXDOMAIN,
    });
    const all = (await walk('domain=one.test')).filter((e) => e.host === 'a.one.test');
    expect(host.history).toEqual([...all].reverse());
    expect(host.history.map((e: Event) => e.type)).toEqual(['host_gone', 'dns_changed', 'dns_changed', 'host_new']);
    expect(host.history.at(-1)).toMatchObject({ type: 'host_new', at: host.first_seen_at, before: null, after: null });
  });

  it('filters host lists and search by what is known: resolves, cname suffix, takeover', async () => {
    await scannedDomain('filter.test');
    const hosts = async (path: string) => {
      const res = await t.get(path, auth);
      expect(res.status).toBe(200);
      return res.body;
    };
    const names = (body: { data: { host: string }[] }) => body.data.map((h) => h.host).sort();
    const resolving = await hosts('/domains/filter.test/subdomains?resolves=true');
    expect(names(resolving)).toEqual(['a.filter.test', 'b.filter.test']);
    expect(resolving.meta.total).toBe(2);
    expect(names(await hosts('/domains/filter.test/subdomains?resolves=false'))).toEqual(['c.filter.test']);
    expect(names(await hosts('/domains/filter.test/subdomains?cname=cdn.test'))).toEqual(['b.filter.test']);
    expect(names(await hosts('/domains/filter.test/subdomains?cname=ORIGIN.cdn.test'))).toEqual(['b.filter.test']);
    expect(names(await hosts('/domains/filter.test/subdomains?cname=cloud.test&resolves=false'))).toEqual([
      'c.filter.test',
    ]);
    expect(names(await hosts('/domains/filter.test/subdomains?cname=dn.test'))).toEqual([]); // labels, not letters
    expect(names(await hosts('/domains/filter.test/subdomains?takeover=true'))).toEqual([]);
    expect(names(await hosts('/subdomains/search?q=.filter.&resolves=false'))).toEqual(['c.filter.test']);
    expect(names(await hosts('/subdomains/search?q=.filter.&cname=cdn.test'))).toEqual(['b.filter.test']);
    // The new-host feeds take the same filters ("alert me of live hosts only").
    const ours = (body: { data: { host: string }[] }) => names(body).filter((h) => h.endsWith('.filter.test'));
    expect(ours(await hosts('/subdomains/new?resolves=true'))).toEqual(['a.filter.test', 'b.filter.test']);
    expect(ours(await hosts('/subdomains/new?resolves=true&cname=cdn.test'))).toEqual(['b.filter.test']);
    expect(names(await hosts('/domains/filter.test/subdomains/new?resolves=false'))).toEqual(['c.filter.test']);
    expect(names(await hosts('/domains/filter.test/subdomains/new?takeover=true'))).toEqual([]);
    expect(ours(await hosts('/platforms/hackerone/subdomains/new?cname=cloud.test'))).toEqual(['c.filter.test']);
    expect(ours(await hosts('/platforms/hackerone/subdomains/new'))).toEqual([
      'a.filter.test',
      'b.filter.test',
      'c.filter.test',
    ]);
    expectError(await t.get('/subdomains/new?resolves=yes', auth), 400, 'invalid_query');
    expectError(await t.get('/platforms/hackerone/subdomains/new?status=99', auth), 400, 'invalid_query');

    expectError(await t.get('/domains/filter.test/subdomains?resolves=maybe', auth), 400, 'invalid_query');
    expectError(await t.get('/domains/filter.test/subdomains?cname=a..b', auth), 400, 'invalid_query');
    expectError(await t.get('/subdomains/search?q=filter&status=2000', auth), 400, 'invalid_query');
    expectError(await t.get('/domains/unknown.test/subdomains?resolves=true', auth), 404, 'not_found');
  });

  it('streams changes with types=, named by type, resuming after a change id', async () => {
    await scannedDomain('live.test');
    const url = `${t.baseUrl}/api/v1/subdomains/stream?domain=live.test&types=dns_changed,host_gone`;
    const first = await SseClient.open(url, auth);
    try {
      expect(first.status).toBe(200);
      dns.records.set('a.live.test', ['198.51.100.9']);
      await rescan('live.test');
      const [changed] = await first.waitForEvents(1, 15_000);
      expect(changed.event).toBe('dns_changed');
      const data = JSON.parse(changed.data!);
      expect(data).toMatchObject({
        type: 'dns_changed',
        host: 'a.live.test',
        domain: 'live.test',
        after: resolved(['198.51.100.9'], [], ['2001:db8::1']),
      });
      // The same event as GET /events gives it, with the same id.
      const feed = (await t.get('/events?domain=live.test&type=dns_changed', auth)).body.data as Event[];
      expect(feed.at(-1)).toEqual({ id: changed.id, ...data });
    } finally {
      await first.close();
    }
    // Gone while no client listened: a client that comes back with the last id it had gets it, and nothing twice.
    const lastId = (await t.get('/events?domain=live.test&type=dns_changed', auth)).body.data.at(-1).id as string;
    dns.records.delete('b.live.test');
    dns.cnames.delete('b.live.test');
    await rescan('live.test');
    const resumed = await SseClient.open(url, { ...auth, 'last-event-id': lastId });
    try {
      const events = await resumed.waitForEvents(2, 15_000);
      expect(events.map((e) => [e.event, JSON.parse(e.data!).host])).toEqual([
        ['dns_changed', 'b.live.test'],
        ['host_gone', 'b.live.test'],
      ]);
    } finally {
      await resumed.close();
    }
    expectError(await t.get('/subdomains/stream?types=bogus', auth), 400, 'invalid_query');
    // An id of the host stream is not one of the change stream.
    expectError(
      await t.get('/subdomains/stream?types=host_new&last_event_id=2026-01-01T00:00:00.000000Z_5', auth),
      400,
      'invalid_query',
    );
  });

  it('answers bad requests with the contract’s errors', async () => {
    expectError(await t.get('/events?after=2026-01-01T00:00:00Z', auth), 400, 'invalid_query');
    expectError(await t.get('/events?after=2026-01-01T00:00:00.000000Z_x1', auth), 400, 'invalid_query');
    expectError(await t.get('/events?after=2026-02-30T00:00:00.000000Z_e1', auth), 400, 'invalid_query');
    expectError(await t.get('/events?type=host_new,bogus', auth), 400, 'invalid_query');
    expectError(await t.get('/events?type=', auth), 400, 'invalid_query');
    expectError(await t.get('/events?limit=0', auth), 400, 'invalid_query');
    expectError(await t.get('/events?domain=Not_A_Domain', auth), 400, 'invalid_domain');
    expectError(await t.get('/events?domain=unknown.test', auth), 404, 'not_found');
    expectError(await t.get('/events?domain=unknown.test&platform=hackerone', auth), 400, 'invalid_query');
    expectError(await t.get('/events?platform=nosuch', auth), 400, 'invalid_query');
    expectError(await t.get('/events'), 401, 'missing_token');
    expectError(await t.get('/hosts/missing.unknown.test', auth), 404, 'not_found');
    expectError(await t.get('/hosts/Bad..Name', auth), 400, 'invalid_domain');
    expectError(await t.get(`/hosts/${'a'.repeat(64)}.unknown.test`, auth), 400, 'invalid_domain');
    const clamped = await t.get('/events?limit=5000', auth);
    expect(clamped.status).toBe(200);
    expect(clamped.body.meta.limit).toBe(1000);
    await seedDomain(t, { domain: 'quiet.test', nextScanAt: SCAN_LATER });
    const empty = await t.get('/events?domain=quiet.test&after=9999-01-01T00:00:00.000000Z_e1', auth);
    expect(empty.body).toEqual({
      data: [],
      meta: { count: 0, limit: 100, after: '9999-01-01T00:00:00.000000Z_e1', has_more: false },
    });
  });

  it('a walk of /events, and a webhook, under concurrent writers skip and repeat nothing', async () => {
    const domain = await seedDomain(t, { domain: 'busy.test', platform: 'bugcrowd', nextScanAt: SCAN_LATER });
    const hook = await t.app
      .get(WebhooksService)
      .add({ url: `${receiver.url}/busy`, domains: 'busy.test', types: 'dns_changed' });
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 12; i++) {
        await t.app.get(HostStore).transaction(async (store) => {
          const m = store.manager;
          const names = [`w${w}-${i}.busy.test`, `w${w}-${i}b.busy.test`];
          await store.seen(domain.id, `SELECT unnest($2::text[]) AS host, 2 AS sources`, [names]);
          await store.answers(
            domain.id,
            [`w${w}-0.busy.test`, ...names].map((host) => ({
              host,
              ...resolved([`192.0.2.${i + 1}`]),
              takeover: null,
            })),
          );
          // A transaction that commits late: the walk must wait for it rather than pass it.
          if (t.databaseUrl) await m.query(`SELECT pg_sleep($1)`, [Math.random() * 0.05]);
        });
      }
    });
    const seen: Event[] = [];
    let after: string | null = null;
    let done = false;
    const finished = Promise.all(writers).then(() => (done = true));
    // A second worker that takes the webhook's deliveries as soon as they exist (no gathering), beside the app's.
    const repository = t.app.get(DeliveriesRepository);
    const taken: string[] = [];
    const claimer = (async () => {
      while (!done) {
        for (const d of await repository.claimDue(8, 3600, 0)) {
          if (d.webhook_id === hook) taken.push(...(await repository.eventsOf(d, 10_000)).map((e) => toEventDto(e).id));
          await repository.record(d, { ok: true, status: 200, error: null }, null);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    for (let polls = 0; polls < 2000; polls++) {
      const wasDone = done;
      const res = await t.get(`/events?domain=busy.test&limit=7${after ? `&after=${after}` : ''}`, auth);
      expect(res.status).toBe(200);
      seen.push(...(res.body.data as Event[]));
      after = res.body.meta.after;
      if (wasDone && !res.body.meta.has_more) break;
    }
    await finished;
    await claimer;
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const [{ hosts, changes }] = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM hosts WHERE domain_id = $1)::int AS hosts,
              (SELECT count(*) FROM host_events WHERE domain_id = $1)::int AS changes`,
      [domain.id],
    );
    expect(hosts).toBe(96);
    expect(changes).toBeGreaterThan(0);
    expect(seen.filter((e) => e.type === 'host_new')).toHaveLength(hosts);
    expect(seen.filter((e) => e.type === 'dns_changed')).toHaveLength(changes);
    expect([...ids].sort(byPosition)).toEqual(ids);
    // The webhook was told of each change exactly once, whichever writer and whichever delivery.
    const sent = (await delivered('/busy')).flatMap((d) => (d.body.events as Event[]).map((e) => e.id));
    const told = [...taken, ...sent];
    expect(taken.length).toBeGreaterThan(0);
    expect([...told].sort()).toEqual(
      seen
        .filter((e) => e.type === 'dns_changed')
        .map((e) => e.id)
        .sort(),
    );
  });
});

/** Event ids in feed order: the instant, then arrivals (n) before other changes (e), then the id as a number. */
function byPosition(x: string, y: string): number {
  const parse = (id: string) => /^(.*)_([ne])(\d+)$/.exec(id)!.slice(1);
  const [ax, kx, nx] = parse(x);
  const [ay, ky, ny] = parse(y);
  return ax !== ay ? (ax < ay ? -1 : 1) : kx !== ky ? (kx === 'n' ? -1 : 1) : Number(nx) - Number(ny);
}
