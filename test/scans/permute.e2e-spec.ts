import { LoopbackCrtsh } from '../fixtures/crtsh-server.js';
import { seedDomain } from '../fixtures/data.js';
import { LoopbackDns } from '../fixtures/dns-server.js';
import { type TestApp, bearer, startTestApp } from '../fixtures/test-app.js';
import { NEVER, tickUntilIdle } from '../fixtures/worker.js';

/**
 * The permute source against real DNS on loopback: a resolver that answers what the test sets, and a trusted one
 * that confirms. Certificates (a loopback crt.sh) tell the root's naming; the hidden hosts are in DNS alone.
 */
describe('the permute source', () => {
  let crt: LoopbackCrtsh;
  let resolver: LoopbackDns; // DNS_SERVERS: answers, one of them a one-off that the trusted server does not give
  let trusted: LoopbackDns; // DNS_TRUSTED_SERVERS
  let t: TestApp;
  let auth: Record<string, string>;
  const BUDGET = 400;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
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
    });
    auth = bearer(await t.token(['read', 'write']));
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
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
});
