import { DomainsRepository } from '../../src/domains/domains.repository.js';
import { LoopbackCrtsh } from '../fixtures/crtsh-server.js';
import { seedDomain } from '../fixtures/data.js';
import { type TestApp, bearer, startTestApp } from '../fixtures/test-app.js';
import { NEVER, tickUntilIdle, worker } from '../fixtures/worker.js';

describe('scans through the worker with the crtsh source', () => {
  let t: TestApp;
  let crt: LoopbackCrtsh;
  let read: Record<string, string>;
  let write: Record<string, string>;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    t = await startTestApp({
      WORKER: 'on',
      WORKER_CRON: NEVER,
      CRTSH_URL: crt.url,
      SOURCE_ATTEMPTS: 2,
      SCAN_SOURCES: ['crtsh'],
      FETCH_MAX_MB: 1,
    });
    read = bearer(await t.token(['read']));
    write = bearer(await t.token(['read', 'write']));
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
  });

  const hosts = async (domain: string) =>
    (await t.get(`/domains/${domain}/subdomains?limit=1000`, read)).body.data as {
      host: string;
      first_seen_at: string;
      is_active: boolean;
    }[];
  const latestScan = async (domain: string) => (await t.get(`/scans?domain=${domain}&limit=1`, read)).body.data[0];

  it('records the hosts of a queued scan with first_seen_at, dropping what is not a host of the domain', async () => {
    await seedDomain(t, { domain: 'acme.com', platform: 'hackerone' });
    crt.names.set('acme.com', [
      'www.acme.com',
      '*.api.acme.com',
      'API.ACME.COM.',
      'mail.acme.com',
      'admin@acme.com',
      'acme.com',
      'other.org',
      'bad_host!.acme.com',
      'dev.acme.com',
    ]);
    expect((await t.post('/scans', { domain: 'acme.com' }, write)).status).toBe(202);
    const before = Date.now();
    const outcomes = await tickUntilIdle(t);

    expect(outcomes).toEqual([{ status: 'success', found: 4, new: 4, reactivated: 0, inactive: 0, dropped: 4 }]);
    const found = await hosts('acme.com');
    expect(found.map((h) => h.host).sort()).toEqual(['api.acme.com', 'dev.acme.com', 'mail.acme.com', 'www.acme.com']);
    for (const h of found) {
      expect(h.is_active).toBe(true);
      expect(Math.abs(Date.parse(h.first_seen_at) - before)).toBeLessThan(30_000);
    }
    expect(await latestScan('acme.com')).toMatchObject({
      trigger: 'api',
      status: 'success',
      found_count: 4,
      new_count: 4,
      dropped_count: 4,
      error: null,
    });
    const domain = (await t.get('/domains/acme.com', read)).body.data;
    expect(domain).toMatchObject({ total_subdomains: 4, new_subdomains_last_scan: 4, last_scan_status: 'success' });
    expect(domain.stats).toMatchObject({ total: 4, active: 4, inactive: 0 });
    expect((await t.get('/domains/acme.com', read)).body.data.last_scanned_at).not.toBeNull();
    // scan persistence counts its new hosts into the rollups the stats read
    expect((await t.get('/stats', read)).body.data.new).toEqual({
      last_hour: 4,
      last_day: 4,
      last_week: 4,
      last_month: 4,
      last_6_months: 4,
    });
    expect((await t.get('/platforms/hackerone', read)).body.data.new_24h).toBe(4);
    // and into the per-domain rollup top domains reads
    expect((await t.get('/stats/top-domains?hours=1', read)).body.data).toEqual([{ domain: 'acme.com', new_count: 4 }]);
  });

  it('marks a host the next complete scan did not see inactive, and keeps first_seen_at of the others', async () => {
    const first = await hosts('acme.com');
    crt.names.set('acme.com', ['www.acme.com', 'api.acme.com', 'mail.acme.com', 'new.acme.com']);
    await t.post('/scans', { domain: 'acme.com' }, write);
    const [outcome] = await tickUntilIdle(t);
    expect(outcome).toEqual({ status: 'success', found: 4, new: 1, reactivated: 0, inactive: 1, dropped: 0 });
    const now = await hosts('acme.com');
    expect(now.find((h) => h.host === 'dev.acme.com')?.is_active).toBe(false);
    for (const h of first.filter((x) => x.host !== 'dev.acme.com')) {
      expect(now.find((x) => x.host === h.host)?.first_seen_at).toBe(h.first_seen_at);
    }
    expect((await t.get('/domains/acme.com', read)).body.data.stats).toMatchObject({
      total: 5,
      active: 4,
      inactive: 1,
    });
  });

  it('gives a scan whose source keeps failing status error with a message, and loses no recorded host', async () => {
    crt.failures.set('acme.com', 5);
    await t.post('/scans', { domain: 'acme.com' }, write);
    const [outcome] = await tickUntilIdle(t);
    expect(outcome).toEqual({ status: 'error', error: 'crtsh: HTTP 502 (after 2 attempts)' });
    const scan = await latestScan('acme.com');
    expect(scan).toMatchObject({ status: 'error', error: 'crtsh: HTTP 502 (after 2 attempts)', inactive_count: 0 });
    expect((await hosts('acme.com')).filter((h) => h.is_active)).toHaveLength(4);
    expect((await t.get('/domains/acme.com', read)).body.data).toMatchObject({
      last_scan_status: 'error',
      total_subdomains: 5,
    });
    const errors = (await t.get('/scans/status', read)).body.data.health;
    expect(errors).toMatchObject({ errors_30m: 1, last_error: 'crtsh: HTTP 502 (after 2 attempts)' });
  });

  it('retries a source that fails once and succeeds', async () => {
    crt.failures.set('acme.com', 1);
    await t.post('/scans', { domain: 'acme.com' }, write);
    const [outcome] = await tickUntilIdle(t);
    expect(outcome).toMatchObject({ status: 'success', new: 0 });
  });

  it('scans due domains on schedule with trigger cron, and rescan-all makes every enabled one due', async () => {
    await seedDomain(t, { domain: 'beta.io' });
    await seedDomain(t, { domain: 'off.io', enabled: false });
    crt.names.set('beta.io', ['x.beta.io']);
    crt.names.set('off.io', ['x.off.io']);
    const outcomes = await tickUntilIdle(t);
    expect(outcomes.map((o) => o.status)).toEqual(['success']);
    expect(await latestScan('beta.io')).toMatchObject({ trigger: 'cron', new_count: 1 });
    expect((await t.get('/scans?domain=off.io', read)).body.data).toEqual([]);

    expect((await tickUntilIdle(t)).length).toBe(0);
    const res = await t.post('/scans/rescan-all', undefined, write);
    expect(res.body.data.queued_domains).toBe(2);
    expect((await tickUntilIdle(t)).length).toBe(2);
  });

  it('runs one scan at a time for a domain queued twice, and the one queued while it ran after it', async () => {
    crt.hanging.add('acme.com');
    await t.post('/scans', { domain: 'acme.com' }, write);
    await t.post('/scans', { domain: 'acme.com' }, write);
    const running = worker(t).tick();
    await waitFor(async () => (await t.get('/scans?domain=acme.com&status=running', read)).body.data.length === 1);
    expect((await t.post('/scans', { domain: 'acme.com' }, write)).status).toBe(202);
    expect((await t.get('/scans/status', read)).body.data.health.running_scans).toBe(1);
    crt.releaseHanging();
    crt.failures.set('acme.com', 0);
    await running;
    await tickUntilIdle(t);
    expect((await t.get('/scans?domain=acme.com&status=running', read)).body.data).toEqual([]);
    const scans = (await t.get('/scans?domain=acme.com', read)).body;
    // The two requests before the tick made one scan; the one made while it ran, one more after it.
    expect(scans.meta.total).toBe(7);
    expect(scans.data.slice(0, 2).map((s: { trigger: string }) => s.trigger)).toEqual(['api', 'api']);
    expect(scans.data[0].status).toBe('success');
    expect(Date.parse(scans.data[0].started_at)).toBeGreaterThanOrEqual(Date.parse(scans.data[1].finished_at));
  });

  it('keeps every new-host rollup as a rebuild from the hosts would make it', async () => {
    await seedDomain(t, { domain: 'rollup.dev', platform: 'intigriti' });
    await seedDomain(t, { domain: 'rollup.org', platform: 'bugcrowd' });
    crt.names.set('rollup.dev', ['a.rollup.dev', 'b.rollup.dev']);
    crt.names.set('rollup.org', ['a.rollup.org']);
    await t.post('/scans', { domain: 'rollup.dev' }, write);
    await t.post('/scans', { domain: 'rollup.org' }, write);
    await tickUntilIdle(t);
    crt.names.set('rollup.dev', ['a.rollup.dev', 'c.rollup.dev', 'd.rollup.dev']);
    await t.post('/scans', { domain: 'rollup.dev' }, write);
    await tickUntilIdle(t);

    const rollups = async () => ({
      minutes: await t.dataSource.query(
        `SELECT minute, platform_slug, n::int FROM new_host_minutes ORDER BY minute, platform_slug`,
      ),
      hours: await t.dataSource.query(`SELECT hour, platform_slug, n::int FROM new_host_counts ORDER BY 1, 2`),
      domainHours: await t.dataSource.query(`SELECT domain_id, hour, n::int FROM domain_new_host_counts ORDER BY 1, 2`),
      domainDays: await t.dataSource.query(`SELECT domain_id, day, n::int FROM domain_new_host_days ORDER BY 1, 2`),
    });
    const kept = await rollups();
    const platformTotal = (rows: { platform_slug: string; n: number }[], slug: string) =>
      rows.filter((r) => r.platform_slug === slug).reduce((sum, r) => sum + r.n, 0);
    expect(platformTotal(kept.minutes, 'intigriti')).toBe(4);
    expect(platformTotal(kept.minutes, 'bugcrowd')).toBe(1);
    await t.app.get(DomainsRepository).rebuildNewHostCounts();
    expect(await rollups()).toEqual(kept);
  });

  it.each([
    [
      'a chunked answer past FETCH_MAX_MB',
      'chunked',
      'crtsh: the body is larger than 1 MiB (FETCH_MAX_MB) (after 2 attempts)',
    ],
    [
      'a gzip answer that inflates past its Content-Length',
      'gzip-bomb',
      'crtsh: the body is larger than 1 MiB (FETCH_MAX_MB) (after 2 attempts)',
    ],
    [
      'a redirect to a file: URL',
      'to-file',
      'crtsh: redirected to a file: URL; only http and https redirects are followed (after 2 attempts)',
    ],
    ['a redirect loop', 'loop', 'crtsh: more than 3 redirects (after 2 attempts)'],
  ] as const)('fails the scan on %s with a clear error', async (_what, kind, error) => {
    await seedDomain(t, { domain: `${kind}.example` });
    crt.hostile.set(`${kind}.example`, kind);
    const requests = crt.requests.length;
    await t.post('/scans', { domain: `${kind}.example` }, write);
    expect(await tickUntilIdle(t)).toEqual([{ status: 'error', error }]);
    expect(await latestScan(`${kind}.example`)).toMatchObject({ status: 'error', error });
    // two attempts, each of one request and at most 3 redirects
    expect(crt.requests.length - requests).toBe(kind === 'loop' ? 8 : 2);
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}
