import { RouteIndex } from '../src/common/http/route-index.js';
import { DataVersion } from '../src/database/data-version.js';
import { DomainsService } from '../src/domains/domains.service.js';
import { ImportRepository } from '../src/import/import.repository.js';
import { WebhooksService } from '../src/notify/webhooks.service.js';
import { addHosts, seedDomain, seedScan } from './fixtures/data.js';
import { statementsDuring, underOneVersion } from './fixtures/data-version.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { HostStore } from '../src/hosts/store/host-store.js';

/** A path to ask for each GET of the API; a GET added without one here fails the first test. */
const SAMPLES: Record<string, string> = {
  'GET /': '/',
  'GET /openapi.json': '/openapi.json',
  'GET /me': '/me',
  'GET /domains': '/domains',
  'GET /domains/{domain}': '/domains/etag.test',
  'GET /domains/{domain}/subdomains': '/domains/etag.test/subdomains',
  'GET /domains/{domain}/subdomains/new': '/domains/etag.test/subdomains/new?hours=24',
  'GET /domains/{domain}/exclusions': '/domains/etag.test/exclusions',
  'GET /subdomains/new': '/subdomains/new?hours=24',
  'GET /subdomains/search': '/subdomains/search?q=www',
  'GET /platforms': '/platforms',
  'GET /platforms/{slug}': '/platforms/hackerone',
  'GET /platforms/{slug}/domains': '/platforms/hackerone/domains',
  'GET /platforms/{slug}/subdomains': '/platforms/hackerone/subdomains',
  'GET /platforms/{slug}/subdomains/new': '/platforms/hackerone/subdomains/new?hours=24',
  'GET /platforms/{slug}/exclusions': '/platforms/hackerone/exclusions',
  'GET /scans': '/scans',
  'GET /scans/status': '/scans/status',
  'GET /scans/sources': '/scans/sources?days=7',
  'GET /scans/{id}': '/scans/{scan}',
  'GET /stats': '/stats',
  'GET /stats/top-domains': '/stats/top-domains?hours=24',
  'GET /stats/timeseries': '/stats/timeseries',
  'GET /events': '/events',
  'GET /hosts/{host}': '/hosts/www.etag.test',
  'GET /webhooks': '/webhooks',
  'GET /webhooks/{id}': '/webhooks/{webhook}',
  'GET /webhooks/{id}/deliveries': '/webhooks/{webhook}/deliveries',
  'GET /ct/logs': '/ct/logs',
};

/** Streamed bodies: no ETag (their bytes are not known before they are sent). */
const STREAMED = ['GET /export', 'GET /subdomains/stream'];

/**
 * Conditional GETs and the data version: every JSON GET has an ETag and answers If-None-Match with 304 and no
 * body; a 304 (and a cached aggregate) runs none of the endpoint's SQL while the version stands; each kind of write
 * moves the version; and a write through one process makes another's next answer fresh.
 */
describe('conditional requests and the data version', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let scanId: string;
  let webhookId: string;
  let etagDomain: Awaited<ReturnType<typeof seedDomain>>;

  beforeAll(async () => {
    t = await startTestApp();
    const token = await t.token(['read', 'write']);
    headers = bearer(token);
    const domain = (etagDomain = await seedDomain(t, {
      domain: 'etag.test',
      platform: 'hackerone',
      program: 'ETag',
      hosts: ['www.etag.test', 'api.etag.test'],
    }));
    scanId = (await seedScan(t, domain, { newCount: 2, foundCount: 2 })).id;
    const hook = await t.post('/webhooks', { url: 'http://127.0.0.1:1/hook' }, headers);
    webhookId = hook.body.data.id;
  });
  afterAll(() => t.close());

  const path = (sample: string) => sample.replace('{scan}', scanId).replace('{webhook}', webhookId);
  const version = () => t.app.get(DataVersion);

  it('has an ETag on every JSON GET, from the route index, and answers its If-None-Match with 304', async () => {
    const gets = t.app
      .get(RouteIndex)
      .apiEndpoints()
      .filter((e) => e.startsWith('GET '));
    expect(gets.filter((e) => !SAMPLES[e] && !STREAMED.includes(e))).toEqual([]);
    for (const endpoint of gets.filter((e) => SAMPLES[e])) {
      const url = path(SAMPLES[endpoint]);
      // A 304 holds while the data version stands: across a move, an answer whose window moves with the clock
      // (meta.since) is rightly computed again.
      const {
        answer: { first, etag, again },
      } = await underOneVersion(
        t,
        async () => {
          const first = await t.get(url, headers);
          expect([endpoint, first.status]).toEqual([endpoint, 200]);
          const etag = first.headers.get('etag');
          return { first, etag, again: await t.get(url, { ...headers, 'if-none-match': etag! }) };
        },
        ({ again }) => again.status === 304,
      );
      expect([endpoint, etag]).toEqual([endpoint, expect.stringMatching(/^W\/"[\w-]{27}"$/)]);
      expect([endpoint, first.headers.get('cache-control')]).toEqual([endpoint, 'private, no-cache']);
      expect([endpoint, again.status, again.text]).toEqual([endpoint, 304, '']);
      expect([endpoint, again.headers.get('etag')]).toEqual([endpoint, etag]);
      expect(again.headers.get('x-request-id')).toBeTruthy();
      // A list of tags that names it, and *, match too; another tag does not.
      const listed = await t.get(url, { ...headers, 'if-none-match': `W/"other", ${etag}` });
      expect([endpoint, listed.status]).toEqual([endpoint, 304]);
      expect([endpoint, (await t.get(url, { ...headers, 'if-none-match': '*' })).status]).toEqual([endpoint, 304]);
      // Another tag gets the body (its ETag the same, but where a window in hours moves meta.since).
      const other = await t.get(url, { ...headers, 'if-none-match': 'W/"not-this-one"' });
      expect([endpoint, other.status, other.headers.get('etag')]).toEqual([endpoint, 200, expect.any(String)]);
      expect(other.text.length).toBeGreaterThan(0);
    }
    for (const endpoint of STREAMED) expect(gets).toContain(endpoint);
  });

  it.each(['/api/v1', '/api/v1/', '/api/v1?format=json', '/api/public/v1'])(
    'has an ETag on the API index at %s, with or without its slash',
    async (url) => {
      const first = await t.get(url, headers);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^W\/"[\w-]{27}"$/);
      expect((await t.get(url, { ...headers, 'if-none-match': etag! })).status).toBe(304);
    },
  );

  it('answers 304 without any of the endpoint’s SQL while the data version stands', async () => {
    const url = '/domains/etag.test/subdomains';
    const first = await t.get(url, headers);
    const etag = first.headers.get('etag')!;
    const sql = await statementsDuring(t, async () => {
      const res = await t.get(url, { ...headers, 'if-none-match': etag });
      expect(res.status).toBe(304);
    });
    expect(sql.filter((s) => /\bhosts\b/.test(s))).toEqual([]);
    // Without If-None-Match the list is read again: the check above would see it.
    const read = await statementsDuring(t, () => t.get(url, headers));
    expect(read.filter((s) => /\bhosts\b/.test(s)).length).toBeGreaterThan(0);
  });

  it('asks for the key before it answers 304: an ETag stands in for no key, no scope and no revoked key', async () => {
    const url = '/domains/etag.test/subdomains';
    const etag = (await t.get(url, headers)).headers.get('etag')!;
    expect((await t.get(url, { ...headers, 'if-none-match': etag })).status).toBe(304);
    expectError(await t.get(url, { 'if-none-match': etag }), 401, 'missing_token');
    expectError(
      await t.get(url, { ...bearer(await t.token(['write'])), 'if-none-match': etag }),
      403,
      'insufficient_scope',
    );
    const revoked = await t.token(['read'], 'etag-revoked');
    const own = await t.get(url, { ...bearer(revoked), 'if-none-match': etag });
    expect(own.status).toBe(304);
    await t.dataSource.query(`UPDATE api_keys SET revoked_at = now() WHERE name = 'etag-revoked'`);
    expectError(await t.get(url, { ...bearer(revoked), 'if-none-match': etag }), 401, 'revoked_token');
  });

  it('reads a domain once per data version for the lists under it, and again after a write', async () => {
    const lookUps = (sql: string[]) => sql.filter((s) => /FROM domains d WHERE d\.domain = \$1/.test(s)).length;
    const seeded = version().current();
    const domain = await seedDomain(t, { domain: 'kept.test', platform: 'self', hosts: ['a.kept.test'] });
    await waitFor('the version to move', () => (version().current() > seeded ? true : undefined));
    const list = '/domains/kept.test/subdomains?limit=5';
    // Asked again after a move, the first may find the domain an earlier attempt read under the new version.
    const { answer } = await underOneVersion(t, async () => ({
      first: await statementsDuring(t, () => t.get(list, headers)),
      again: await statementsDuring(t, async () => {
        expect((await t.get(list, headers)).status).toBe(200);
        expect((await t.get('/domains/kept.test/subdomains/new?hours=1', headers)).status).toBe(200);
      }),
    }));
    expect(lookUps(answer.first)).toBeLessThanOrEqual(1);
    expect(lookUps(answer.again)).toBe(0);
    // A write moves the version, and the domain is read again: here its new host counts.
    const counted = async () => (await t.get(list, headers)).body.meta.total as number;
    const total = await counted();
    const before = version().current();
    await addHosts(t, domain, ['b.kept.test']);
    await waitFor('the version to move', () => (version().current() > before ? true : undefined));
    const sql = await statementsDuring(t, async () => expect(await counted()).toBe(total + 1));
    expect(lookUps(sql)).toBe(1);
  });

  it('computes an aggregate once per data version, and again after a write', async () => {
    const first = await t.get('/stats', headers);
    const sql = await statementsDuring(t, async () => {
      const again = await t.get('/stats', headers); // no If-None-Match: the kept body
      expect([again.status, again.text]).toEqual([200, first.text]);
    });
    expect(sql.filter((s) => /\bhosts\b|\bdomains\b|new_host/.test(s))).toEqual([]);
    const before = version().current();
    await seedDomain(t, { domain: 'later.test', platform: 'hackerone', hosts: ['a.later.test'] });
    await waitFor('the version to move', () => (version().current() > before ? true : undefined));
    const after = await t.get('/stats', { ...headers, 'if-none-match': first.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(after.body.data.totals.domains).toBe(first.body.data.totals.domains + 1);
  });

  it('computes an aggregate once for requests that ask for it together', async () => {
    // The statements of the aggregate: not the key's look-up, nor the data version's own poll of data_versions.
    const aggregateSql = (sql: string[]) => sql.filter((s) => !/\bapi_keys\b|\bdata_versions\b/.test(s));
    const alone = aggregateSql(await statementsDuring(t, () => t.get('/stats/top-domains?hours=11', headers)));
    expect(alone.length).toBeGreaterThan(0);
    // Each attempt asks for a window none asked before (hours), so none finds the aggregate kept.
    const { answer } = await underOneVersion(t, async (attempt) => {
      let answers: { status: number; text: string }[] = [];
      const together = aggregateSql(
        await statementsDuring(t, async () => {
          answers = await Promise.all(
            Array.from({ length: 6 }, () => t.get(`/stats/top-domains?hours=${11 + attempt}`, headers)),
          );
        }),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
      return { together, answers };
    });
    expect(answer.together.length).toBe(alone.length);
    expect(new Set(answer.answers.map((a) => a.text)).size).toBe(1);
  });

  describe('list counts', () => {
    beforeAll(async () => {
      const before = version().current();
      const second = await seedDomain(t, { domain: 'second-etag.test', platform: 'hackerone' });
      await seedScan(t, second, { newCount: 0, foundCount: 0 });
      // Counts kept before these writes are not asked for again.
      await waitFor('the version to move', () => (version().current() > before ? true : undefined));
    });

    // A list's count (meta.total) is read once per data version: the next page of the same list, and the same list
    // asked again, run their page alone. Asked again after a move of the version, the first page may find the
    // count the last attempt's second page read under the new version.
    const counts = (sql: string[]) => sql.filter((s) => /count\(\*\)::int AS total/.test(s)).length;
    async function countsOfPages(first: string, next: string) {
      const { answer, attempts } = await underOneVersion(t, async () => {
        const pages: Awaited<ReturnType<TestApp['get']>>[] = [];
        const sql = [
          await statementsDuring(t, async () => void pages.push(await t.get(first, headers))),
          await statementsDuring(t, async () => void pages.push(await t.get(next, headers))),
        ];
        return { counted: sql.map(counts), pages };
      });
      return { ...answer, retried: attempts > 1 };
    }

    it.each([
      ['/domains?limit=1', '/domains?limit=1&offset=1'],
      ['/domains?search=test&limit=1', '/domains?search=test&limit=1&offset=1'],
      ['/scans?limit=1', '/scans?limit=1&offset=1'],
      ['/platforms/hackerone/domains?limit=1', '/platforms/hackerone/domains?limit=1&offset=1'],
      [
        '/domains/etag.test/subdomains?search=etag&limit=1',
        '/domains/etag.test/subdomains?search=etag&limit=1&offset=1',
      ],
    ])('counts %s once per data version: its next page reads its rows alone', async (first, next) => {
      const { counted, pages, retried } = await countsOfPages(first, next);
      expect(pages.map((p) => p.status)).toEqual([200, 200]);
      expect(counted).toEqual([retried ? counted[0] : 1, 0]);
      expect(pages[1].body.meta.total).toBe(pages[0].body.meta.total);
      expect(pages[0].body.meta.total).toBeGreaterThan(1);
      expect(pages[1].body.data).not.toEqual(pages[0].body.data);
    });

    it('counts a list again after a write, and a window that moves with the clock every time', async () => {
      const before = (await t.get('/domains', headers)).body.meta.total as number;
      const moved = version().current();
      await seedDomain(t, { domain: 'counted.test', platform: 'self' });
      await waitFor('the version to move', () => (version().current() > moved ? true : undefined));
      expect((await t.get('/domains', headers)).body.meta.total).toBe(before + 1);
      // New hosts of the last 24 hours: the same version, counted each time.
      const { counted } = await countsOfPages(
        '/domains/etag.test/subdomains?filter=new&limit=1',
        '/domains/etag.test/subdomains?filter=new&limit=1&offset=1',
      );
      expect(counted).toEqual([1, 1]);
    });
  });

  describe('the version moves on every kind of write', () => {
    /** Runs a write and waits (up to the helper's limit) for this process to learn of it. */
    async function moves(write: () => Promise<unknown>): Promise<void> {
      const before = version().current();
      await write();
      await waitFor('the data version to move', () => (version().current() > before ? true : undefined));
    }

    it('hosts recorded (a scan or the CT log follower)', async () => {
      const domain = await seedDomain(t, { domain: 'moves.test', platform: 'self' });
      await moves(() => addHosts(t, domain, ['new.moves.test']));
    });

    it('hosts changed (what is known of them)', async () => {
      await moves(() =>
        t.dataSource.query(
          `INSERT INTO host_intel (host_id, a) SELECT id, '{192.0.2.1}' FROM hosts WHERE host = 'www.etag.test'
           ON CONFLICT (host_id) DO UPDATE SET a = excluded.a`,
        ),
      );
    });

    it('domains added, changed and removed', async () => {
      const domains = t.app.get(DomainsService);
      await moves(() => domains.add(['kinds.test'], 'self', null, true));
      await moves(() => domains.setEnabled(['kinds.test'], false));
      await moves(() => domains.remove(['kinds.test']));
    });

    it('scans started and finished', async () => {
      await moves(() => t.post('/scans', { domain: 'etag.test' }, headers));
      await moves(() =>
        t.dataSource.query(`UPDATE scans SET status = 'success', finished_at = now() WHERE id = $1`, [scanId]),
      );
    });

    it('imports', async () => {
      await moves(() =>
        new ImportRepository(t.dataSource, new HostStore(t.dataSource)).apply(
          [{ domain: 'imported.test', platform: 'bugcrowd', program: 'Imported', handle: 'imported' }],
          null,
          null,
          false,
        ),
      );
    });

    it('webhooks and exclusion rules', async () => {
      await moves(() => t.app.get(WebhooksService).add({ url: 'http://127.0.0.1:1/other' }));
      await moves(() => t.post('/domains/etag.test/exclusions', { pattern: 'old.etag.test' }, headers));
    });

    it('once for a write it is told of: its next look at data_versions finds the row it was told of', async () => {
      // A process of its own that looks at data_versions only when asked (and hears its own writes' notices on
      // either database).
      const other = await startTestApp({ DATA_VERSION_POLL_SECONDS: 60 }, { shareDatabaseOf: t });
      try {
        const own = other.app.get(DataVersion);
        own.current();
        if (process.env.TEST_DATABASE_URL) {
          // On a server its LISTEN connection moves the version once when it opens: wait for it to be open.
          await waitFor('the LISTEN connection', async () => {
            const [{ n }] = await other.dataSource.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
            );
            return n >= 2 ? true : undefined;
          });
        }
        // Settled: a look that finds nothing new.
        await waitFor('a look that moves nothing', async () => {
          const before = own.current();
          await own.look();
          return own.current() === before ? true : undefined;
        });
        // A write of the other app landing between the notice and the look would rightly move it again: asked
        // until a look follows a notice with nothing else written in between (it fails if every look moves).
        let told = 0;
        let writes = 0;
        await waitFor('a look that finds only the write it was told of', async () => {
          const before = own.current();
          await other.dataSource.query(`UPDATE domains SET program = $1 WHERE domain = 'etag.test'`, [
            `Told ${++writes}`,
          ]);
          await waitFor('the notice', () => (own.current() > before ? true : undefined));
          told = own.current();
          await own.look();
          return own.current() === told ? true : undefined;
        });
        // Another process's write moves it too (on the embedded database no notice of it reaches this process).
        await t.dataSource.query(`UPDATE domains SET program = 'ETag' WHERE domain = 'etag.test'`);
        await waitFor('the look to find the write', async () => {
          await own.look();
          return own.current() > told ? true : undefined;
        });
      } finally {
        await other.close();
      }
    });

    it('not on a write that changes nothing, nor on a key being used', async () => {
      await t.dataSource.query(`UPDATE domains SET enabled = true WHERE false`);
      await t.dataSource.query(`UPDATE api_keys SET last_used_at = now()`);
      await version().look();
      const before = version().current();
      await version().look();
      expect(version().current()).toBe(before);
    });
  });

  it('makes the next answer of a second process fresh after a write through the first', async () => {
    const other = await startTestApp({ DATA_VERSION_POLL_SECONDS: 1 }, { shareDatabaseOf: t });
    try {
      const url = '/domains/etag.test/subdomains?limit=1000';
      const first = await other.get(url, headers);
      const etag = first.headers.get('etag')!;
      expect((await other.get(url, { ...headers, 'if-none-match': etag })).status).toBe(304);
      await addHosts(t, etagDomain, ['fresh.etag.test']);
      const fresh = await waitFor('the other process to answer fresh', async () => {
        const res = await other.get(url, { ...headers, 'if-none-match': etag });
        return res.status === 200 ? res : undefined;
      });
      expect((fresh.body.data as { host: string }[]).map((h) => h.host)).toContain('fresh.etag.test');
    } finally {
      await other.close();
    }
  });
});
