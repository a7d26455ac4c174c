import { SINCE } from '../../src/discovery/source-health.repository.js';
import { x509Leaf } from '../fixtures/ct-certs.js';
import { LoopbackCtLog } from '../fixtures/ct-log.js';
import { LoopbackCrtsh } from '../fixtures/crtsh-server.js';
import { seedDomain } from '../fixtures/data.js';
import { LoopbackDns } from '../fixtures/dns-server.js';
import { type TestApp, bearer, startTestApp } from '../fixtures/test-app.js';
import { waitFor } from '../fixtures/wait.js';
import { NEVER, tickUntilIdle, worker } from '../fixtures/worker.js';

/**
 * The permute source against real DNS on loopback: a resolver that answers what the test sets, and a trusted one
 * that confirms. Certificates (a loopback crt.sh) tell the root's naming; the hidden hosts are in DNS alone.
 */
describe('the permute source', () => {
  let crt: LoopbackCrtsh;
  let log: LoopbackCtLog; // the CT follower's: a host it finds seeds an event scan
  let resolver: LoopbackDns; // DNS_SERVERS: answers, one of them a one-off that the trusted server does not give
  let trusted: LoopbackDns; // DNS_TRUSTED_SERVERS
  let t: TestApp;
  let auth: Record<string, string>;
  const BUDGET = 400;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    log = await new LoopbackCtLog().start();
    resolver = await new LoopbackDns().start();
    trusted = await new LoopbackDns().start();
    t = await startTestApp({
      WORKER: 'on',
      WORKER_CRON: NEVER,
      CRTSH_URL: crt.url,
      SCAN_SOURCES: ['crtsh', 'permute'],
      RESOLVE: 'on',
      DNS_SERVERS: [resolver.address],
      DNS_TRUSTED_SERVERS: [trusted.address],
      DNS_TIMEOUT_MS: 300,
      SOURCE_ATTEMPTS: 1,
      PERMUTE_BUDGET: BUDGET,
      CT_LOGS: [log.url],
      CT_START: 'start',
      CT_POLL_SECONDS: 1,
      PERMUTE_EVENT_SECONDS: 0,
    });
    auth = bearer(await t.token(['read', 'write']));
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
    await log.stop();
    await resolver.close();
    await trusted.close();
  });

  /** A name both servers answer. */
  const record = (host: string, address: string) => {
    resolver.records.set(host, [address]);
    trusted.records.set(host, [address]);
  };
  const hosts = async (domain: string) =>
    (
      (await t.get(`/domains/${domain}/subdomains?limit=1000`, auth)).body.data as { host: string; sources: string[] }[]
    ).map((h) => [h.host, h.sources.join(',')]);
  const lastScan = async (domain: string) => (await t.get(`/scans?domain=${domain}&limit=1`, auth)).body.data[0];

  it('learns a root’s naming and finds the hosts no certificate names, confirmed, within its budget', async () => {
    const named = ['api-staging-1', 'web-staging-2', 'api-prod-2', 'www', 'a.dev'].map((l) => `${l}.perm.test`);
    named.forEach((h, i) => record(h, `192.0.2.${i + 1}`));
    // In DNS, named by no certificate: the series' next, the environment swap, a host of the revealed sub-zone.
    record('api-staging-2.perm.test', '198.51.100.1');
    record('web-prod-2.perm.test', '198.51.100.2');
    record('www.dev.perm.test', '198.51.100.3');
    // A one-off answer of the first resolver (flaky, or poisoned) that the trusted server does not give.
    resolver.records.set('api-prod-1.perm.test', ['203.0.113.66']);
    crt.names.set('perm.test', named);
    await seedDomain(t, { domain: 'perm.test', platform: 'hackerone' });
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 8 }]);

    const found = await hosts('perm.test');
    expect(found.filter(([, sources]) => sources === 'permute').sort()).toEqual([
      ['api-staging-2.perm.test', 'permute'],
      ['web-prod-2.perm.test', 'permute'],
      ['www.dev.perm.test', 'permute'],
    ]);
    expect(found.map(([host]) => host)).not.toContain('api-prod-1.perm.test');
    const scan = await lastScan('perm.test');
    // What each source did: the names it reported, how many of them resolved (seen), how many were new.
    expect(scan.source_stats).toEqual({
      crtsh: { ms: expect.any(Number), names: 5, seen: 5, new: 5 },
      permute: {
        ms: expect.any(Number),
        names: 3,
        seen: 3,
        new: 3,
        candidates: expect.any(Number),
        queries: expect.any(Number),
        hits: 3,
      },
    });
    const { candidates, queries } = scan.source_stats.permute;
    expect(candidates).toBeGreaterThan(10);
    expect(queries).toBeLessThanOrEqual(BUDGET);
    // Each confirmed hit cost the trusted server one query, and so did the one-off answer; nothing else asks it.
    expect(trusted.queries).toBe(4);
    // Each pattern's tries and hits are kept for the root, to steer the next scan.
    const yields = await t.dataSource.query(
      `SELECT pattern, tried::int, hits::int FROM permute_yields y JOIN domains d ON d.id = y.domain_id
        WHERE d.domain = 'perm.test' ORDER BY pattern`,
    );
    expect(yields.reduce((n: number, y: { hits: number }) => n + y.hits, 0)).toBe(3);

    // A second scan with nothing new asks none of the names that did not resolve again (the negative cache).
    const tried = await t.dataSource.query(
      `SELECT host, tried_at FROM permute_tried p JOIN domains d ON d.id = p.domain_id WHERE d.domain = 'perm.test'`,
    );
    expect(tried.map((r: { host: string }) => r.host)).toContain('api-prod-1.perm.test');
    await t.post('/scans', { domain: 'perm.test' }, auth);
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 0 }]);
    const again = await t.dataSource.query(
      `SELECT host, tried_at FROM permute_tried p JOIN domains d ON d.id = p.domain_id WHERE d.domain = 'perm.test'`,
    );
    const at = new Map(again.map((r: { host: string; tried_at: Date }) => [r.host, r.tried_at.getTime()]));
    for (const r of tried as { host: string; tried_at: Date }[])
      expect([r.host, at.get(r.host)]).toEqual([r.host, r.tried_at.getTime()]);
    const second = (await lastScan('perm.test')).source_stats.permute;
    expect(second.candidates).toBeLessThan(candidates);
  });

  it('finds nothing in a wildcard zone, where every name answers', async () => {
    resolver.wildcards.set('w.wild.test', ['192.0.2.200']);
    trusted.wildcards.set('w.wild.test', ['192.0.2.200']);
    const named = ['api-1.w.wild.test', 'api-2.w.wild.test', 'shop-dev.w.wild.test', 'www.wild.test'];
    named.forEach((h) => record(h, '192.0.2.200'));
    record('www.wild.test', '192.0.2.9');
    crt.names.set('wild.test', named);
    await seedDomain(t, { domain: 'wild.test', platform: 'hackerone' });
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 4 }]);
    expect((await hosts('wild.test')).filter(([, sources]) => sources.includes('permute'))).toEqual([]);
    expect((await lastScan('wild.test')).source_stats.permute).toMatchObject({ hits: 0 });
  });

  it('spends no more than its budget on a root whose names suggest far more', async () => {
    const named = Array.from({ length: 300 }, (_, i) => `node-${i * 3}-eu.big.test`);
    crt.names.set('big.test', named);
    await seedDomain(t, { domain: 'big.test', platform: 'hackerone' });
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success' }]);
    const { candidates, queries } = (await lastScan('big.test')).source_stats.permute;
    expect(candidates).toBe(BUDGET);
    expect(queries).toBeLessThanOrEqual(BUDGET);
    expect(queries).toBeGreaterThan(BUDGET - 10);
  });

  it('seeds permutations around a host the CT follower finds, in an event scan that touches nothing else', async () => {
    const named = ['app-1.event.test', 'app-2.event.test', 'www.event.test'];
    named.forEach((h, i) => record(h, `192.0.2.${20 + i}`));
    crt.names.set('event.test', named);
    await seedDomain(t, { domain: 'event.test', platform: 'hackerone' });
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 3 }]);
    const before = (await t.get('/domains/event.test', auth)).body.data;

    // Then a certificate names a host of a new word, whose environment siblings only DNS holds. www stops
    // resolving: an event scan proves no host gone, a root's scan would.
    record('shop-dev.event.test', '198.51.100.20');
    record('shop-prod.event.test', '198.51.100.21');
    resolver.records.delete('www.event.test');
    log.append(x509Leaf({ dns: ['shop-dev.event.test'] }));
    await waitFor(
      'the CT follower to record shop-dev.event.test',
      async () => (await hosts('event.test')).some(([host]) => host === 'shop-dev.event.test') || undefined,
    );
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 1, inactive: 0 }]);

    expect(await hosts('event.test')).toEqual(
      expect.arrayContaining([
        ['shop-dev.event.test', 'ct'],
        ['shop-prod.event.test', 'permute'],
        ['www.event.test', 'crtsh'],
      ]),
    );
    const scan = await lastScan('event.test');
    expect(scan).toMatchObject({ trigger: 'event', status: 'success', new_count: 1, inactive_count: 0 });
    expect(scan.source_stats).toEqual({
      permute: {
        ms: expect.any(Number),
        names: 1,
        seen: 1,
        new: 1,
        candidates: expect.any(Number),
        queries: expect.any(Number),
        hits: 1,
      },
    });
    // Only what the seed suggests: its word with other environments (shop-…), the root's words in its place (…-dev).
    const tried = await t.dataSource.query(
      `SELECT host FROM permute_tried p JOIN domains d ON d.id = p.domain_id
        WHERE d.domain = 'event.test' AND p.tried_at >= $1`,
      [scan.started_at],
    );
    expect(tried.length).toBeGreaterThan(5);
    for (const { host } of tried as { host: string }[])
      expect([host, host.startsWith('shop') || host.endsWith('-dev.event.test')]).toEqual([host, true]);
    // The root's last scan is still its last scan of every name.
    const after = (await t.get('/domains/event.test', auth)).body.data;
    expect(after).toMatchObject({
      last_scanned_at: before.last_scanned_at,
      new_subdomains_last_scan: before.new_subdomains_last_scan,
      total_subdomains: before.total_subdomains + 2,
      stats: { active: before.stats.active + 2, inactive: 0 },
    });
    // The mark is cleared: the next tick has nothing to do.
    expect(await tickUntilIdle(t)).toEqual([]);
  });

  it('tells what each source is worth: successes, failures, time, names, seen, new, and a source that floods', async () => {
    // crt.sh names 122 hosts of which two resolve (it floods), then fails the next scan; permute finds a third.
    record('app-1.health.test', '192.0.2.71');
    record('app-2.health.test', '192.0.2.72');
    record('app-3.health.test', '192.0.2.73');
    crt.names.set('health.test', [
      ...Array.from({ length: 120 }, (_, i) => `ghost-${i}.health.test`),
      'app-1.health.test',
      'app-2.health.test',
    ]);
    await seedDomain(t, { domain: 'health.test', platform: 'hackerone' });
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 3 }]);
    crt.failures.set('health.test', 1);
    await t.post('/scans', { domain: 'health.test' }, auth);
    expect(await tickUntilIdle(t)).toMatchObject([{ status: 'error' }]);

    const r = await t.get('/scans/sources?domain=health.test&days=7', auth);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ days: 7, domain: 'health.test', since: expect.any(String) });
    const today = new Date().toISOString().slice(0, 10);
    expect(r.body.data).toEqual([
      {
        source: 'crtsh',
        configured: true,
        successes: 1,
        failures: 1,
        last_failure: expect.stringMatching(/^crtsh: HTTP 502/),
        last_failure_at: expect.any(String),
        ms_median: expect.any(Number),
        ms_p95: expect.any(Number),
        names: 122,
        seen: 2,
        new: 2,
        flooding: true,
        days: [{ day: today, successes: 1, failures: 1, names: 122, new: 2 }],
      },
      expect.objectContaining({
        source: 'permute',
        successes: 1,
        failures: 0,
        names: 1,
        seen: 1,
        new: 1,
        flooding: false,
      }),
    ]);
    // Every root's scans, from the day's roll-ups: this root's count among them.
    const all = (await t.get('/scans/sources', auth)).body;
    expect(all.meta).toMatchObject({ days: 30, domain: null });
    const permute = all.data.find((s: { source: string }) => s.source === 'permute');
    expect(permute.new).toBeGreaterThanOrEqual(1);
    expect(permute.names).toBe(permute.seen);
    // Of every root from the day's roll-ups: crt.sh's failure, its flood and its times are there too.
    const crtsh = all.data.find((s: { source: string }) => s.source === 'crtsh');
    expect(crtsh).toMatchObject({
      failures: 1,
      last_failure: expect.stringMatching(/^crtsh: HTTP 502/),
      ms_median: expect.any(Number),
      days: [expect.objectContaining({ day: today, failures: 1 })],
    });
    expect(crtsh.successes).toBeGreaterThanOrEqual(1);
    expect(crtsh.names).toBeGreaterThanOrEqual(122);

    // The window starts at a UTC midnight whatever the session's TimeZone.
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      const [{ since }] = await t.dataSource.transaction(async (m) => {
        await m.query(`SET LOCAL TimeZone = '${zone}'`);
        return m.query(`SELECT to_char(${SINCE} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS since`, [7]);
      });
      const first = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
      expect([zone, since]).toEqual([zone, `${first} 00:00:00`]);
    }
    for (const [query, status, code] of [
      ['days=0', 400, 'invalid_query'],
      ['days=366', 400, 'invalid_query'],
      ['days=1.5', 400, 'invalid_query'],
      ['domain=unknown.test', 404, 'not_found'],
      ['domain=a..test', 400, 'invalid_domain'],
    ] as const) {
      const bad = await t.get(`/scans/sources?${query}`, auth);
      expect([query, bad.status, bad.body.error?.code]).toEqual([query, status, code]);
    }
  });

  it('gives event scans at most half the free slots, then the queued scans theirs, then events the rest', async () => {
    const roots = Array.from({ length: 9 }, (_, i) => `slot-${i + 1}.test`);
    for (const domain of roots) {
      crt.names.set(domain, [`www.${domain}`]);
      await seedDomain(t, { domain, platform: 'hackerone' });
    }
    await tickUntilIdle(t);
    const due = (names: string[]) =>
      t.dataSource.query(`UPDATE domains SET permute_due_at = now() - interval '1 hour' WHERE domain = ANY ($1)`, [
        names,
      ]);
    /** The scans of the slot roots the last tick started, by trigger: those that were not there before it (a time
     * taken here would be in milliseconds, a scan's started_at in microseconds: one inserted in the same
     * millisecond just before would count). */
    const tick = async () => {
      const before = (await t.dataSource.query(`SELECT id FROM scans`)).map((r: { id: string }) => r.id);
      expect((await worker(t).tick()).skipped).toBe(false);
      const rows = await t.dataSource.query(
        `SELECT s.trigger, count(*)::int AS n FROM scans s JOIN domains d ON d.id = s.domain_id
          WHERE d.domain = ANY ($1) AND s.id <> ALL ($2::uuid[]) GROUP BY 1 ORDER BY 1`,
        [roots, before],
      );
      return rows.map((r: { trigger: string; n: number }) => [r.trigger, r.n]);
    };
    // SCAN_CONCURRENCY is 4; one slot goes on with a running scan, three are free. Three roots wait for event
    // scans, two are queued: one event scan (half of three, rounded down), then the two queued.
    await due(roots.slice(0, 3));
    for (const domain of roots.slice(3, 5)) expect((await t.post('/scans', { domain }, auth)).status).toBe(202);
    const [running] = await t.dataSource.query(`SELECT id FROM domains WHERE domain = 'slot-6.test'`);
    await t.dataSource.query(`INSERT INTO scans (domain_id, trigger, status) VALUES ($1, 'cron', 'running')`, [
      running.id,
    ]);
    expect(await tick()).toEqual([
      ['api', 2],
      ['event', 1],
    ]);
    await tickUntilIdle(t);
    // Nothing queued or due: event scans take the slots the others left, all four.
    await due(roots.slice(5, 9));
    expect(await tick()).toEqual([['event', 4]]);
  });

  it('gives an event scan’s seeds back when it fails, and leaves the root’s last scan as it was', async () => {
    crt.names.set('gone.test', ['www.gone.test']);
    await seedDomain(t, { domain: 'gone.test', platform: 'hackerone' });
    await tickUntilIdle(t);
    const before = (await t.get('/domains/gone.test', auth)).body.data;
    // An event scan whose worker died three times (its lease run out): the worker ends it in error.
    await t.dataSource.query(
      `INSERT INTO scans (domain_id, trigger, status, attempts, lease_until, seeds_from)
       SELECT id, 'event', 'running', 3, now() - interval '1 minute', '2026-01-01T00:00:00Z' FROM domains
        WHERE domain = 'gone.test'`,
    );
    await tickUntilIdle(t);
    // It ended in error, and the seeds it gave back started the next event scan at once, from the same time.
    const scans = await t.dataSource.query(
      `SELECT s.trigger, s.status, s.seeds_from FROM scans s JOIN domains d ON d.id = s.domain_id
        WHERE d.domain = 'gone.test' AND s.trigger = 'event' ORDER BY s.started_at`,
    );
    expect(scans.map((r: { status: string; seeds_from: Date }) => [r.status, r.seeds_from.toISOString()])).toEqual([
      ['error', '2026-01-01T00:00:00.000Z'],
      ['success', '2026-01-01T00:00:00.000Z'],
    ]);
    const after = (await t.get('/domains/gone.test', auth)).body.data;
    expect(after).toMatchObject({ last_scanned_at: before.last_scanned_at, last_scan_status: before.last_scan_status });
  });
});
