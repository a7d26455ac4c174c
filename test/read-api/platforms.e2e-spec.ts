import { hoursAgo, names, seedDomain } from '../fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from '../fixtures/test-app.js';

describe('platforms', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const active: string[] = [];
  const inactive: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    // Three hackerone programs of different sizes, one with inactive hosts; one bugcrowd program.
    const sizes: [string, number, number][] = [
      ['zeta.io', 5, 0],
      ['alpha.com', 40, 3],
      ['mid.net', 17, 2],
    ];
    for (const [domain, live, dead] of sizes) {
      const hosts = [
        ...names(domain, live).map((host) => ({ host, firstSeenAt: hoursAgo(30) })),
        ...names(domain, dead, 'old').map((host) => ({ host, active: false, firstSeenAt: hoursAgo(300) })),
      ];
      await seedDomain(t, { domain, platform: 'hackerone', program: domain.split('.')[0], hosts });
      active.push(...names(domain, live));
      inactive.push(...names(domain, dead, 'old'));
    }
    await seedDomain(t, {
      domain: 'crowd.org',
      platform: 'bugcrowd',
      hosts: [{ host: 'a.crowd.org' }, { host: 'b.crowd.org' }],
    });
  });
  afterAll(() => t.close());

  it('lists the five platforms with their counts', async () => {
    const res = await t.get('/platforms', auth);
    expect(res.body.data.map((p: { slug: string }) => p.slug)).toEqual([
      'bugcrowd',
      'hackerone',
      'intigriti',
      'self',
      'yeswehack',
    ]);
    expect(res.body.data[0]).toEqual({
      slug: 'bugcrowd',
      name: 'Bugcrowd',
      domain_count: 1,
      subdomain_count: 2,
      new_24h: 2,
    });
    expect(res.body.data[1]).toEqual({
      slug: 'hackerone',
      name: 'HackerOne',
      domain_count: 3,
      subdomain_count: 67,
      new_24h: 0,
    });
  });

  it('counts new_24h to the host around the start of the window: whole hours, whole minutes, the partial minute', async () => {
    // One host every 7 seconds from 24h04m to 23h56m ago, and a few further in: the window starts among them.
    const times = Array.from({ length: 69 }, (_, i) => hoursAgo(24 + 4 / 60).getTime() + i * 7_000);
    times.push(hoursAgo(23.5).getTime(), hoursAgo(12).getTime(), hoursAgo(25).getTime());
    await seedDomain(t, {
      domain: 'edge.dev',
      platform: 'yeswehack',
      hosts: times.map((at, i) => ({ host: `h${i}.edge.dev`, firstSeenAt: new Date(at) })),
    });
    const newSince = (moment: number) => times.filter((at) => at >= moment - 24 * 3_600_000).length;
    const before = Date.now();
    const one = (await t.get('/platforms/yeswehack', auth)).body.data.new_24h;
    const all = (await t.get('/platforms', auth)).body.data.find(
      (p: { slug: string }) => p.slug === 'yeswehack',
    ).new_24h;
    const stats = (await t.get('/stats', auth)).body.data;
    const after = Date.now();
    // The window ends at the request's moment, somewhere between `before` and `after`.
    for (const counted of [one, all, stats.platforms.find((p: { slug: string }) => p.slug === 'yeswehack').new_24h]) {
      expect(counted).toBeGreaterThanOrEqual(newSince(after));
      expect(counted).toBeLessThanOrEqual(newSince(before));
    }
    // last_day adds bugcrowd's two hosts of now; hackerone's are older.
    expect(stats.new.last_day - 2).toBeGreaterThanOrEqual(newSince(after));
    expect(stats.new.last_day - 2).toBeLessThanOrEqual(newSince(before));
  });

  it('shows one platform, and answers an unknown slug with 404 unknown_platform everywhere', async () => {
    expect((await t.get('/platforms/intigriti', auth)).body.data).toEqual({
      slug: 'intigriti',
      name: 'Intigriti',
      domain_count: 0,
      subdomain_count: 0,
      new_24h: 0,
    });
    for (const path of ['', '/domains', '/subdomains', '/subdomains?format=txt', '/subdomains/new']) {
      expectError(await t.get(`/platforms/nowhere${path}`, auth), 404, 'unknown_platform');
    }
  });

  it("lists a platform's root domains A→Z with paging", async () => {
    const res = await t.get('/platforms/hackerone/domains', auth);
    expect(res.body.data).toEqual([
      { domain: 'alpha.com', program: 'alpha', enabled: true, total_subdomains: 43 },
      { domain: 'mid.net', program: 'mid', enabled: true, total_subdomains: 19 },
      { domain: 'zeta.io', program: 'zeta', enabled: true, total_subdomains: 5 },
    ]);
    expect(res.body.meta).toEqual({ limit: 200, offset: 0, total: 3 });
    const page = await t.get('/platforms/hackerone/domains?limit=1&offset=1', auth);
    expect(page.body.data.map((d: { domain: string }) => d.domain)).toEqual(['mid.net']);
    expect((await t.get('/platforms/hackerone/domains?limit=99999', auth)).body.meta.limit).toBe(1000);
  });

  const walkJson = async (query: string) => {
    const hosts: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await t.get(`/platforms/hackerone/subdomains?${query}${cursor ? `&cursor=${cursor}` : ''}`, auth);
      expect(res.status).toBe(200);
      hosts.push(...res.body.data.map((h: { host: string }) => h.host));
      expect(res.body.meta.count).toBe(res.body.data.length);
      expect(res.body.meta.has_more).toBe(res.body.meta.next_cursor !== null);
      cursor = res.body.meta.next_cursor;
      pages++;
    } while (cursor && pages < 500);
    return { hosts, pages };
  };

  it.each([1, 7, 10000])(
    'walks every active host exactly once, program after program, in pages of %i (json)',
    async (limit) => {
      const { hosts, pages } = await walkJson(`limit=${limit}`);
      const expected = [...active].sort(
        (a, b) => a.split('.').slice(1).join('.').localeCompare(b.split('.').slice(1).join('.')) || a.localeCompare(b),
      );
      expect(hosts).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(active.length / limit)));
    },
  );

  it.each([1, 7, 10000])(
    'walks the same hosts as plain text in pages of %i, following X-Next-Cursor',
    async (limit) => {
      const hosts: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 500; i++) {
        const res = await t.get(
          `/platforms/hackerone/subdomains?format=txt&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
          auth,
        );
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        hosts.push(...res.text.split('\n').filter(Boolean));
        cursor = res.headers.get('x-next-cursor');
        if (!cursor) break;
      }
      expect(new Set(hosts).size).toBe(hosts.length);
      expect([...hosts].sort()).toEqual([...active].sort());
    },
  );

  it('includes hosts no longer seen with active=false, and filters programs by domain text', async () => {
    const all = await walkJson('limit=10000&active=false');
    expect([...all.hosts].sort()).toEqual([...active, ...inactive].sort());
    const mid = await walkJson('limit=4&program=MID');
    expect(mid.hosts).toEqual(names('mid.net', 17));
    const page = (await t.get('/platforms/hackerone/subdomains?limit=2&program=zeta', auth)).body;
    expect(page.data[0]).toEqual({
      host: 'h00000.zeta.io',
      domain: 'zeta.io',
      is_active: true,
      sources: [],
      in_scope: true,
    });
  });

  it.each(['garbage', 'c1.e30.AAAAAAAAAAAA', 'c1.WyJhLmNvbSIsImIiXQ.xxxxxxxxxxxx'])(
    'answers a tampered cursor %j with 400 invalid_query',
    async (cursor) => {
      expectError(await t.get(`/platforms/hackerone/subdomains?cursor=${cursor}`, auth), 400, 'invalid_query');
    },
  );

  it('answers bad feed parameters with 400 invalid_query', async () => {
    expectError(await t.get('/platforms/hackerone/subdomains?format=csv', auth), 400, 'invalid_query');
    expectError(await t.get('/platforms/hackerone/subdomains?active=nope', auth), 400, 'invalid_query');
    expect((await t.get('/platforms/hackerone/subdomains?limit=20000', auth)).body.meta.limit).toBe(10000);
  });

  it("lists a platform's new hosts in the window", async () => {
    const res = await t.get('/platforms/bugcrowd/subdomains/new', auth);
    expect(res.body.data.map((h: { host: string; domain: string }) => [h.host, h.domain]).sort()).toEqual([
      ['a.crowd.org', 'crowd.org'],
      ['b.crowd.org', 'crowd.org'],
    ]);
    expect(res.body.meta).toMatchObject({ count: 2, limit: 500 });
    // Nothing hidden and nothing filtered: the walk alone.
    const everything = await t.get('/platforms/bugcrowd/subdomains/new?wildcard=include&scope=all', auth);
    expect(everything.status).toBe(200);
    expect(everything.body.data).toEqual(res.body.data);
    expect((await t.get('/platforms/hackerone/subdomains/new', auth)).body.data).toEqual([]);
    expect((await t.get('/platforms/hackerone/subdomains/new?hours=48', auth)).body.meta.count).toBe(62);
  });
});
