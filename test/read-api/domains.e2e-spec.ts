import { hoursAgo, seedDomain } from '../fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from '../fixtures/test-app.js';

describe('GET /domains and /domains/{domain}', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    await seedDomain(t, {
      domain: 'alpha.com',
      platform: 'hackerone',
      program: 'Alpha',
      hosts: [
        'a.alpha.com',
        { host: 'b.alpha.com', active: false },
        { host: 'c.alpha.com', firstSeenAt: hoursAgo(72) },
      ],
      lastScannedAt: hoursAgo(2),
      newSubdomainsLastScan: 2,
      lastScanStatus: 'success',
    });
    await seedDomain(t, {
      domain: 'beta-pct.io',
      platform: 'bugcrowd',
      hosts: ['x.beta-pct.io'],
      lastScannedAt: hoursAgo(1),
      newSubdomainsLastScan: 5,
    });
    await seedDomain(t, { domain: 'gamma.org', platform: 'hackerone', enabled: false });
    await seedDomain(t, {
      domain: 'delta.co.uk',
      platform: 'self',
      hosts: ['1.delta.co.uk', '2.delta.co.uk', '3.delta.co.uk', '4.delta.co.uk'],
    });
  });
  afterAll(() => t.close());

  const list = async (query = '') => (await t.get(`/domains${query}`, auth)).body;
  const domainsOf = (body: { data: { domain: string }[] }) => body.data.map((d) => d.domain);

  it('lists domains A→Z with the documented fields and meta', async () => {
    const body = await list();
    expect(domainsOf(body)).toEqual(['alpha.com', 'beta-pct.io', 'delta.co.uk', 'gamma.org']);
    expect(body.meta).toEqual({ limit: 100, offset: 0, total: 4 });
    expect(body.data[0]).toEqual({
      domain: 'alpha.com',
      platform: 'hackerone',
      program: 'Alpha',
      enabled: true,
      total_subdomains: 3,
      new_subdomains_last_scan: 2,
      last_scanned_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      last_scan_status: 'success',
    });
  });

  it.each([
    ['?sort=total_subdomains', ['delta.co.uk', 'alpha.com', 'beta-pct.io', 'gamma.org']],
    ['?sort=new_subdomains_last_scan', ['beta-pct.io', 'alpha.com', 'delta.co.uk', 'gamma.org']],
    ['?sort=last_scanned_at', ['beta-pct.io', 'alpha.com', 'delta.co.uk', 'gamma.org']],
    ['?sort=domain', ['alpha.com', 'beta-pct.io', 'delta.co.uk', 'gamma.org']],
  ])('sorts with %s', async (query, expected) => {
    expect(domainsOf(await list(query))).toEqual(expected);
  });

  it('filters by platform, enabled and a case-insensitive literal search', async () => {
    expect(domainsOf(await list('?platform=hackerone'))).toEqual(['alpha.com', 'gamma.org']);
    expect(domainsOf(await list('?enabled=false'))).toEqual(['gamma.org']);
    expect(domainsOf(await list('?enabled=true&platform=hackerone'))).toEqual(['alpha.com']);
    expect(domainsOf(await list('?search=ALPH'))).toEqual(['alpha.com']);
    expect(domainsOf(await list('?search=.co.'))).toEqual(['delta.co.uk']);
    expect((await list('?search=%25')).meta.total).toBe(0);
    expect((await list('?search=_')).meta.total).toBe(0);
  });

  it('pages with limit and offset, clamping limit to 1000', async () => {
    const page = await list('?limit=2&offset=1');
    expect(domainsOf(page)).toEqual(['beta-pct.io', 'delta.co.uk']);
    expect(page.meta).toEqual({ limit: 2, offset: 1, total: 4 });
    expect((await list('?limit=5000')).meta.limit).toBe(1000);
    expect((await list('?offset=10')).data).toEqual([]);
  });

  it('ignores parameters the contract does not name', async () => {
    expect((await t.get('/domains?colour=blue&limit=1', auth)).body.meta.limit).toBe(1);
  });

  it.each([
    ['limit=abc', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=0', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['sort=size', 'sort'],
    ['enabled=maybe', 'enabled'],
    ['platform=nowhere', 'platform'],
    ['search=' + 'a'.repeat(300), 'search'],
  ])('answers %s with 400 invalid_query naming %s', async (query, name) => {
    const res = await t.get(`/domains?${query}`, auth);
    expectError(res, 400, 'invalid_query');
    expect(res.body.error.message).toContain(name);
  });

  it('shows one domain with its stats', async () => {
    const res = await t.get('/domains/alpha.com', auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ domain: 'alpha.com', total_subdomains: 3 });
    expect(res.body.data.stats).toEqual({ total: 3, new_24h: 2, new_7d: 3, active: 2, inactive: 1 });
  });

  it('answers a malformed domain with 400 invalid_domain and an untracked one with 404 not_found', async () => {
    expectError(await t.get('/domains/Alpha.com', auth), 400, 'invalid_domain');
    expectError(await t.get('/domains/www.alpha.com', auth), 400, 'invalid_domain');
    expectError(await t.get('/domains/nope.com', auth), 404, 'not_found');
    expectError(await t.get('/api/public/v1/domains/nope.com', auth), 404, 'not_found');
  });
});
