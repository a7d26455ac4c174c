import { hoursAgo, names, seedDomain } from '../fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from '../fixtures/test-app.js';

describe('stats', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const now = Date.now();

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    const at = (h: number) => hoursAgo(h, now);
    await seedDomain(t, {
      domain: 'big.com',
      platform: 'hackerone',
      hosts: [
        ...names('big.com', 3).map((host) => ({ host, firstSeenAt: at(0.5) })),
        ...names('big.com', 2, 'd').map((host) => ({ host, firstSeenAt: at(5) })),
        { host: 'w.big.com', firstSeenAt: at(24 * 5) },
        { host: 'm.big.com', firstSeenAt: at(24 * 20), active: false },
        { host: 'y.big.com', firstSeenAt: at(24 * 100) },
        { host: 'ancient.big.com', firstSeenAt: at(24 * 400) },
      ],
    });
    await seedDomain(t, {
      domain: 'aaa.com',
      platform: 'self',
      hosts: [
        { host: 'x.aaa.com', firstSeenAt: at(2) },
        { host: 'y.aaa.com', firstSeenAt: at(3) },
      ],
    });
    await seedDomain(t, {
      domain: 'bbb.com',
      platform: 'self',
      enabled: false,
      hosts: [
        { host: 'x.bbb.com', firstSeenAt: at(4) },
        { host: 'y.bbb.com', firstSeenAt: at(4) },
      ],
    });
  });
  afterAll(() => t.close());

  it('GET /stats gives totals, new counts per window and per-platform figures', async () => {
    const res = await t.get('/stats', auth);
    expect(res.body.data.totals).toEqual({
      domains: 3,
      enabled_domains: 2,
      subdomains: 13,
      active_subdomains: 12,
      inactive_subdomains: 1,
    });
    expect(res.body.data.new).toEqual({ last_hour: 3, last_day: 9, last_week: 10, last_month: 11, last_6_months: 12 });
    expect(res.body.data.platforms.find((p: { slug: string }) => p.slug === 'self')).toEqual({
      slug: 'self',
      name: 'Self-managed',
      domain_count: 2,
      subdomain_count: 4,
      new_24h: 4,
    });
  });

  it('GET /stats/top-domains ranks by new hosts in the window, ties by domain name', async () => {
    const res = await t.get('/stats/top-domains', auth);
    expect(res.body.data).toEqual([
      { domain: 'big.com', new_count: 5 },
      { domain: 'aaa.com', new_count: 2 },
      { domain: 'bbb.com', new_count: 2 },
    ]);
    expect(res.body.meta).toEqual({ since: expect.any(String), limit: 20 });
    expect((await t.get('/stats/top-domains?limit=1', auth)).body.data).toEqual([{ domain: 'big.com', new_count: 5 }]);
    expect((await t.get('/stats/top-domains?hours=1', auth)).body.data).toEqual([{ domain: 'big.com', new_count: 3 }]);
    expect((await t.get('/stats/top-domains?limit=1000', auth)).body.meta.limit).toBe(200);
  });

  it.each([
    [0.75, 3, 0],
    [6, 5, 2],
    [24 * 5 + 2, 6, 2],
    [24 * 20 + 2, 7, 2],
    [24 * 100 + 2, 8, 2],
    [24 * 400 + 2, 9, 2],
  ])(
    'GET /stats/top-domains?since=%s hours ago adds up days, hours and the partial hour exactly',
    async (hours, big, small) => {
      const since = new Date(now - hours * 3_600_000).toISOString();
      const res = await t.get(`/stats/top-domains?since=${since}`, auth);
      const expected = [{ domain: 'big.com', new_count: big }];
      if (small) expected.push({ domain: 'aaa.com', new_count: small }, { domain: 'bbb.com', new_count: small });
      expect(res.body.data).toEqual(expected);
    },
  );

  it('GET /stats/timeseries has every bucket of the window oldest first, empty ones as 0', async () => {
    const res = await t.get('/stats/timeseries?hours=6', auth);
    const points: { ts: string; new_subdomains: number }[] = res.body.data;
    expect(points.length === 7 || points.length === 6).toBe(true);
    expect(points.map((p) => p.ts)).toEqual([...points.map((p) => p.ts)].sort());
    expect(points.every((p) => /T\d\d:00:00\.000000Z$/.test(p.ts))).toBe(true);
    expect(points.reduce((sum, p) => sum + p.new_subdomains, 0)).toBe(9);
    expect(points.filter((p) => p.new_subdomains === 0).length).toBeGreaterThan(0);
    expect(res.body.meta).toEqual({ bucket: 'hour', since: expect.any(String), count: points.length });
  });

  it('buckets by day, week and month in UTC', async () => {
    const day = (await t.get('/stats/timeseries?bucket=day&hours=240', auth)).body.data;
    expect(day.length).toBeGreaterThanOrEqual(10);
    expect(day.every((p: { ts: string }) => p.ts.endsWith('T00:00:00.000000Z'))).toBe(true);
    expect(day.reduce((s: number, p: { new_subdomains: number }) => s + p.new_subdomains, 0)).toBe(10);
    const week = (await t.get('/stats/timeseries?bucket=week&hours=2000', auth)).body.data;
    expect(week.every((p: { ts: string }) => new Date(p.ts).getUTCDay() === 1)).toBe(true);
    const month = (
      await t.get(`/stats/timeseries?bucket=month&since=${new Date(now - 24 * 3600e3 * 120).toISOString()}`, auth)
    ).body.data;
    expect(month.every((p: { ts: string }) => p.ts.slice(8) === '01T00:00:00.000000Z')).toBe(true);
    expect(month.reduce((s: number, p: { new_subdomains: number }) => s + p.new_subdomains, 0)).toBe(12);
  });

  it('answers bad parameters with 400 invalid_query', async () => {
    expectError(await t.get('/stats/timeseries?bucket=minute', auth), 400, 'invalid_query');
    expectError(await t.get('/stats/timeseries?since=1990-01-01T00:00:00Z', auth), 400, 'invalid_query');
    expectError(await t.get('/stats/top-domains?hours=x', auth), 400, 'invalid_query');
    expectError(await t.get('/stats/top-domains?since=tomorrow', auth), 400, 'invalid_query');
  });

  it('answers a future since with empty results', async () => {
    const future = new Date(now + 3600e3 * 48).toISOString();
    expect((await t.get(`/stats/timeseries?since=${future}`, auth)).body.data).toEqual([]);
    expect((await t.get(`/stats/top-domains?since=${future}`, auth)).body.data).toEqual([]);
  });
});
