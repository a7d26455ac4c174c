import { addHosts, hoursAgo, names, seedDomain } from '../fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from '../fixtures/test-app.js';

describe('hosts: per-domain lists, the new-host feed and search', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const base = Date.now();

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    await seedDomain(t, {
      domain: 'acme.com',
      platform: 'hackerone',
      hosts: [
        { host: 'new1.acme.com', firstSeenAt: hoursAgo(1, base), sources: ['dns', 'crtsh', 'ct'] },
        { host: 'new2.acme.com', firstSeenAt: hoursAgo(2, base), sources: ['command'] },
        { host: 'old.acme.com', firstSeenAt: hoursAgo(48, base) },
        { host: 'gone.acme.com', firstSeenAt: hoursAgo(100, base), active: false },
        { host: 'x_y.acme.com', firstSeenAt: hoursAgo(200, base) },
        { host: 'x-y.acme.com', firstSeenAt: hoursAgo(201, base) },
      ],
    });
    await seedDomain(t, {
      domain: 'other.net',
      platform: 'bugcrowd',
      hosts: [{ host: 'api.other.net', firstSeenAt: hoursAgo(3, base), sources: ['ct'] }],
    });
  });
  afterAll(() => t.close());

  const hostsOf = (body: { data: { host: string }[] }) => body.data.map((h) => h.host);
  const ACME_NEWEST_FIRST = [
    'new1.acme.com',
    'new2.acme.com',
    'old.acme.com',
    'gone.acme.com',
    'x_y.acme.com',
    'x-y.acme.com',
  ];

  describe('GET /domains/{domain}/subdomains', () => {
    it('lists the domain hosts newest first with meta.total', async () => {
      const res = await t.get('/domains/acme.com/subdomains', auth);
      expect(hostsOf(res.body)).toEqual(ACME_NEWEST_FIRST);
      expect(res.body.meta).toEqual({ limit: 100, offset: 0, total: 6 });
      expect(res.body.data[0]).toEqual({
        id: expect.stringMatching(/^\d+$/),
        host: 'new1.acme.com',
        first_seen_at: expect.any(String),
        is_active: true,
        sources: ['ct', 'crtsh', 'dns'], // always in this order
        in_scope: true, // no knowledge without fields= (test/read-api/host-fields)
      });
      expect(res.body.data.find((h: { host: string }) => h.host === 'old.acme.com').sources).toEqual([]);
    });

    it('shows every host of a root without exclusion rules in scope, and none with scope=out', async () => {
      const all = await t.get('/domains/acme.com/subdomains?scope=all', auth);
      expect(all.body.data.map((h: { in_scope: boolean }) => h.in_scope)).toEqual(ACME_NEWEST_FIRST.map(() => true));
      const out = await t.get('/domains/acme.com/subdomains?scope=out', auth);
      expect([out.status, out.body.data, out.body.meta.total]).toEqual([200, [], 0]);
      const bulk = await t.get('/platforms/hackerone/subdomains?active=false&scope=out', auth);
      expect([bulk.status, bulk.body.data]).toEqual([200, []]);
      const inScope = await t.get('/platforms/hackerone/subdomains?active=false', auth);
      expect(hostsOf(inScope.body).sort()).toEqual([...ACME_NEWEST_FIRST].sort());
    });

    it('filters new (first seen in the last 24 hours), active and inactive', async () => {
      const fresh = (await t.get('/domains/acme.com/subdomains?filter=new', auth)).body;
      expect(hostsOf(fresh)).toEqual(['new1.acme.com', 'new2.acme.com']);
      expect(fresh.meta.total).toBe(2);
      const inactive = (await t.get('/domains/acme.com/subdomains?filter=inactive', auth)).body;
      expect(hostsOf(inactive)).toEqual(['gone.acme.com']);
      expect(inactive.meta.total).toBe(1);
      const active = (await t.get('/domains/acme.com/subdomains?filter=active', auth)).body;
      expect(hostsOf(active)).toEqual(ACME_NEWEST_FIRST.filter((h) => h !== 'gone.acme.com'));
      expect(active.meta.total).toBe(5); // the domain's live counter
    });

    it('searches literally: _ matches only an underscore', async () => {
      expect(hostsOf((await t.get('/domains/acme.com/subdomains?search=x_y', auth)).body)).toEqual(['x_y.acme.com']);
      expect(hostsOf((await t.get('/domains/acme.com/subdomains?search=NEW', auth)).body)).toEqual([
        'new1.acme.com',
        'new2.acme.com',
      ]);
    });

    it('pages with limit and offset', async () => {
      const res = await t.get('/domains/acme.com/subdomains?limit=2&offset=2', auth);
      expect(hostsOf(res.body)).toEqual(['old.acme.com', 'gone.acme.com']);
      expect(res.body.meta).toEqual({ limit: 2, offset: 2, total: 6 });
    });

    it('answers bad input with the contract errors', async () => {
      expectError(await t.get('/domains/acme.com/subdomains?filter=old', auth), 400, 'invalid_query');
      expectError(await t.get('/domains/acme.com/subdomains?limit=x', auth), 400, 'invalid_query');
      expectError(await t.get('/domains/ACME.com/subdomains', auth), 400, 'invalid_domain');
      expectError(await t.get('/domains/missing.com/subdomains', auth), 404, 'not_found');
    });
  });

  describe('GET /domains/{domain}/subdomains/new', () => {
    it('returns hosts first seen in the last 24 hours by default, with meta.since and count', async () => {
      const res = await t.get('/domains/acme.com/subdomains/new', auth);
      expect(hostsOf(res.body)).toEqual(['new1.acme.com', 'new2.acme.com']);
      expect(res.body.meta).toEqual({ since: expect.any(String), count: 2, limit: 500 });
      expect(Math.abs(Date.parse(res.body.meta.since) - hoursAgo(24).getTime())).toBeLessThan(60_000);
      expect(Object.keys(res.body.data[0])).toEqual(['id', 'host', 'first_seen_at', 'sources', 'in_scope']);
      expect(res.body.data.map((h: { sources: string[] }) => h.sources)).toEqual([['ct', 'crtsh', 'dns'], ['command']]);
    });

    it('widens with hours, and since overrides hours', async () => {
      expect((await t.get('/domains/acme.com/subdomains/new?hours=72', auth)).body.meta.count).toBe(3);
      const since = hoursAgo(150, base).toISOString();
      const res = await t.get(`/domains/acme.com/subdomains/new?hours=1&since=${since}`, auth);
      expect(hostsOf(res.body)).toEqual(['new1.acme.com', 'new2.acme.com', 'old.acme.com', 'gone.acme.com']);
      // echoed as the instant it was read as: UTC with six fraction digits, like first_seen_at
      expect(res.body.meta.since).toBe(since.replace(/Z$/, '000Z'));
      expect((await t.get('/domains/acme.com/subdomains/new?limit=5000', auth)).body.meta.limit).toBe(2000);
    });

    it.each(['hours=0', 'hours=-3', 'hours=abc', 'since=yesterday', 'since=2026-13-01T00:00:00Z', 'since=2026-02-30'])(
      'answers %s with 400 invalid_query',
      async (query) => {
        const res = await t.get(`/domains/acme.com/subdomains/new?${query}`, auth);
        expectError(res, 400, 'invalid_query');
        expect(res.body.error.message).toContain(query.split('=')[0]);
      },
    );
  });

  describe('GET /subdomains/new', () => {
    it('lists new hosts across programs, newest first, with their domain', async () => {
      const res = await t.get('/subdomains/new', auth);
      expect(res.body.data.map((h: { host: string; domain: string }) => [h.host, h.domain])).toEqual([
        ['new1.acme.com', 'acme.com'],
        ['new2.acme.com', 'acme.com'],
        ['api.other.net', 'other.net'],
      ]);
      expect(res.body.meta).toEqual({ since: expect.any(String), count: 3, limit: 500 });
    });

    it('requires before_ts and before_id together, and well-formed', async () => {
      expectError(await t.get('/subdomains/new?before_ts=2026-01-01T00:00:00Z', auth), 400, 'invalid_query');
      expectError(await t.get('/subdomains/new?before_id=5', auth), 400, 'invalid_query');
      expectError(await t.get('/subdomains/new?before_ts=soon&before_id=5', auth), 400, 'invalid_query');
      expectError(
        await t.get('/subdomains/new?before_ts=2026-01-01T00:00:00Z&before_id=abc', auth),
        400,
        'invalid_query',
      );
    });
  });

  describe('GET /subdomains/search', () => {
    it('finds hosts whose name contains q, literally and case-insensitively', async () => {
      const res = await t.get('/subdomains/search?q=API', auth);
      expect(res.body.data).toEqual([
        {
          id: expect.any(String),
          host: 'api.other.net',
          domain: 'other.net',
          first_seen_at: expect.any(String),
          is_active: true,
          sources: ['ct'],
          in_scope: true,
        },
      ]);
      expect(res.body.meta).toEqual({ q: 'API', limit: 100, offset: 0 });
      expect(hostsOf((await t.get('/subdomains/search?q=x_', auth)).body)).toEqual(['x_y.acme.com']);
      // newest first, as the feeds: first_seen_at, then id
      expect(hostsOf((await t.get('/subdomains/search?q=acme', auth)).body)).toEqual(ACME_NEWEST_FIRST);
      expect(hostsOf((await t.get('/subdomains/search?q=acme&offset=2&limit=2', auth)).body)).toEqual([
        'old.acme.com',
        'gone.acme.com',
      ]);
      expect((await t.get('/subdomains/search?q=%25%25', auth)).body.data).toEqual([]);
    });

    it('requires q of at least 2 characters', async () => {
      expectError(await t.get('/subdomains/search', auth), 400, 'invalid_query');
      expectError(await t.get('/subdomains/search?q=a', auth), 400, 'invalid_query');
      expectError(await t.get('/subdomains/search?q=%20a%20', auth), 400, 'invalid_query');
    });
  });

  describe('the /subdomains/new cursor walk', () => {
    const walk = async (limit: number, since: string, between?: (page: number) => Promise<void>) => {
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page < 1000; page++) {
        const res = await t.get(`/subdomains/new?limit=${limit}&since=${since}${cursor}`, auth);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((h: { host: string }) => h.host));
        const next = res.body.meta.next_cursor;
        if (!next || res.body.data.length === 0) break;
        expect(res.body.data.length).toBe(limit);
        cursor = `&before_ts=${encodeURIComponent(next.before_ts)}&before_id=${next.before_id}`;
        if (between) await between(page);
      }
      return seen;
    };

    it('returns every host exactly once, ties on first_seen_at included, while new hosts arrive', async () => {
      const walkDomain = await seedDomain(t, { domain: 'walk.dev' });
      // 120 hosts over 30 distinct timestamps: four share each one, so the id breaks ties.
      const moments = Array.from({ length: 30 }, (_, i) => hoursAgo(5 + i, base));
      const initial = names('walk.dev', 120).map((host, i) => ({ host, firstSeenAt: moments[i % 30] }));
      await addHosts(t, walkDomain, initial);
      const since = encodeURIComponent(hoursAgo(40, base).toISOString());
      const expected = [...initial.map((h) => h.host), 'new1.acme.com', 'new2.acme.com', 'api.other.net'];

      let arrivals = 0;
      const arrive = async () => {
        arrivals++;
        await addHosts(t, walkDomain, [
          { host: `late${arrivals}.walk.dev` },
          { host: `late${arrivals}b.walk.dev`, firstSeenAt: new Date() },
        ]);
      };
      // After the first page, hosts arrive both between pages and concurrently with the requests.
      let running = true;
      let background: Promise<void> = Promise.resolve();
      const seen = await walk(7, since, async (page) => {
        if (page === 0) {
          background = (async () => {
            while (running) {
              await arrive();
              await new Promise((r) => setTimeout(r, 5));
            }
          })();
        }
        await arrive();
      });
      running = false;
      await background;

      expect(arrivals).toBeGreaterThan(5);
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual([...expected].sort());
    });

    it('ends with no next_cursor on the last page', async () => {
      const res = await t.get('/subdomains/new?limit=2000', auth);
      expect(res.body.meta.next_cursor).toBeUndefined();
    });
  });
});
