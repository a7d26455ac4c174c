import { request } from 'node:http';
import { DemoDataRepository } from '../src/demo/demo-data.repository.js';
import { DemoDataService } from '../src/demo/demo-data.service.js';
import { hoursAgo, seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';

describe('GET /export', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    await seedDomain(t, {
      domain: 'beta.com',
      platform: 'hackerone',
      hosts: [
        { host: 'b.beta.com', firstSeenAt: hoursAgo(1) },
        { host: 'a.beta.com', firstSeenAt: hoursAgo(100), sources: ['crtsh', 'ct'] },
        { host: 'x_1.beta.com', firstSeenAt: hoursAgo(200), active: false },
      ],
    });
    await seedDomain(t, {
      domain: 'alpha.io',
      platform: 'bugcrowd',
      hosts: [{ host: 'api.alpha.io', firstSeenAt: hoursAgo(2) }],
    });
    await seedDomain(t, {
      domain: 'gamma.net',
      platform: 'hackerone',
      hosts: [{ host: 'z.gamma.net', firstSeenAt: hoursAgo(50) }],
    });
  });
  afterAll(() => t.close());

  const lines = (text: string) => text.split('\n').filter(Boolean);

  it('exports every host as text, one per line, ordered by domain then host, with a filename', async () => {
    const res = await t.get('/export', auth);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="subdomains-all-all-\d{8}\.txt"$/);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.text).toBe('api.alpha.io\na.beta.com\nb.beta.com\nx_1.beta.com\nz.gamma.net\n');
  });

  it('exports RFC 4180 csv with a header row', async () => {
    const res = await t.get('/export?format=csv&domain=beta.com', auth);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toMatch(/filename="subdomains-beta\.com-all-\d{8}\.csv"/);
    const rows = res.text.split('\r\n');
    expect(rows.at(-1)).toBe('');
    expect(rows[0]).toBe('host,domain,platform,first_seen_at,is_active');
    expect(rows.slice(1, -1).map((r) => r.split(','))).toEqual([
      [
        'a.beta.com',
        'beta.com',
        'hackerone',
        expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        'true',
      ],
      ['b.beta.com', 'beta.com', 'hackerone', expect.any(String), 'true'],
      ['x_1.beta.com', 'beta.com', 'hackerone', expect.any(String), 'false'],
    ]);
  });

  it('exports one JSON array of objects', async () => {
    const res = await t.get('/export?format=json&platform=hackerone', auth);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual([
      {
        host: 'a.beta.com',
        domain: 'beta.com',
        platform: 'hackerone',
        first_seen_at: expect.any(String),
        is_active: true,
        sources: ['ct', 'crtsh'],
      },
      {
        host: 'b.beta.com',
        domain: 'beta.com',
        platform: 'hackerone',
        first_seen_at: expect.any(String),
        is_active: true,
        sources: [],
      },
      {
        host: 'x_1.beta.com',
        domain: 'beta.com',
        platform: 'hackerone',
        first_seen_at: expect.any(String),
        is_active: false,
        sources: [],
      },
      {
        host: 'z.gamma.net',
        domain: 'gamma.net',
        platform: 'hackerone',
        first_seen_at: expect.any(String),
        is_active: true,
        sources: [],
      },
    ]);
    expect((await t.get('/export?format=json&search=nothing-matches', auth)).body).toEqual([]);
  });

  it.each([
    ['scope=new', ['api.alpha.io', 'b.beta.com']],
    ['scope=new&hours=60', ['api.alpha.io', 'b.beta.com', 'z.gamma.net']],
    [`scope=new&since=${hoursAgo(120).toISOString()}`, ['api.alpha.io', 'a.beta.com', 'b.beta.com', 'z.gamma.net']],
    ['scope=inactive', ['x_1.beta.com']],
    ['platform=bugcrowd', ['api.alpha.io']],
    ['domain=gamma.net', ['z.gamma.net']],
    ['search=API', ['api.alpha.io']],
    ['search=_', ['x_1.beta.com']],
    ['scope=new&platform=hackerone&search=b', ['b.beta.com']],
  ])('filters with %s', async (query, expected) => {
    expect(lines((await t.get(`/export?${query}`, auth)).text)).toEqual(expected);
  });

  it('names the export in its filename', async () => {
    const res = await t.get('/export?platform=hackerone&scope=new&hours=12&format=json', auth);
    expect(res.headers.get('content-disposition')).toMatch(/filename="subdomains-hackerone-new-12h-\d{8}\.json"/);
  });

  it('answers bad parameters with the JSON error before any byte of the export', async () => {
    expectError(await t.get('/export?format=xml', auth), 400, 'invalid_query');
    expectError(await t.get('/export?scope=old', auth), 400, 'invalid_query');
    expectError(await t.get('/export?domain=beta.com&platform=hackerone', auth), 400, 'invalid_query');
    expectError(await t.get('/export?platform=nowhere', auth), 400, 'invalid_query');
    expectError(await t.get('/export?domain=BETA.com', auth), 400, 'invalid_domain');
    expectError(await t.get('/export?domain=missing.com', auth), 404, 'not_found');
    expectError(await t.get('/export?hours=0&scope=new', auth), 400, 'invalid_query');
    expectError(await t.get('/export'), 401, 'missing_token');
  });
});

describe('GET /export at scale', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token();
    await new DemoDataService(new DemoDataRepository(t.dataSource), t.env).seed(
      { domains: 200, hosts: 200_000, days: 30, seed: 'export' },
      () => undefined,
    );
  }, 180_000);
  afterAll(() => t.close());

  // csv reads through a cursor and frames in Node; txt passes COPY's bytes through. Both must stay flat.
  it.each([
    ['csv', '\r\n', 200_001], // the header row and 200,000 hosts
    ['txt', '\n', 200_000],
  ])(
    'streams 200,000 rows as %s exactly, while the server heap grows by less than 50 MB',
    async (format, eol, expected) => {
      global.gc?.();
      const before = process.memoryUsage().heapUsed;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
      const res = await fetch(`${t.baseUrl}/api/v1/export?format=${format}`, { headers: { 'x-api-key': token } });
      expect(res.status).toBe(200);
      let rows = 0;
      let tail = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = tail + decoder.decode(chunk, { stream: true });
        const parts = text.split(eol);
        tail = parts.pop() ?? '';
        rows += parts.length;
      }
      clearInterval(sampler);
      expect(tail).toBe('');
      expect(rows).toBe(expected);
      expect((peak - before) / 2 ** 20).toBeLessThan(50);
    },
    120_000,
  );

  // json reads through a cursor, txt through COPY TO STDOUT: both must stop when the client goes away.
  it.each(['json', 'txt'])('stops the %s export query at once when the client goes away mid-stream', async (format) => {
    // A client that disconnects closes its socket after the first bytes, as curl does on Ctrl-C.
    await new Promise<void>((resolve, reject) => {
      const req = request(`${t.baseUrl}/api/v1/export?format=${format}`, { headers: { 'x-api-key': token } }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });

    // The connection is back in the pool: the next request is served at once, and (on the server) no
    // export query is left running.
    const started = Date.now();
    const me = await fetch(`${t.baseUrl}/api/v1/me`, { headers: { 'x-api-key': token } });
    expect(me.status).toBe(200);
    await me.arrayBuffer();
    expect(Date.now() - started).toBeLessThan(5000);
    if (t.databaseUrl) {
      let running = 1;
      for (let i = 0; i < 50 && running > 0; i++) {
        const [row] = await t.dataSource.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE (query LIKE '/* export */%' OR query LIKE 'COPY (SELECT h.host%') AND state <> 'idle' AND pid <> pg_backend_pid()`,
        );
        running = row.n;
        if (running > 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(running).toBe(0);
    }
  });
});
