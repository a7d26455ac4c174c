import { request } from 'node:http';
import { DemoDataRepository } from '../src/demo/demo-data.repository.js';
import { DemoDataService } from '../src/demo/demo-data.service.js';
import { DomainsService } from '../src/domains/domains.service.js';
import { ExportRepository } from '../src/export/export.repository.js';
import { batchStatement } from '../src/export/export.sql.js';
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

  // Each batch is read whole as PostgreSQL sends it, into a queue the client empties: memory must stay flat.
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

  it('pauses a batch larger than may wait for the client, and resumes it as the client reads', async () => {
    const repository = t.app.get(ExportRepository);
    const whole = await (
      await fetch(`${t.baseUrl}/api/v1/export?format=csv`, { headers: { 'x-api-key': token } })
    ).text();
    // 16 KiB may wait, 64 KiB at most: the first batch (10,000 rows, about 900 KB) is paused again and again.
    const bytes = repository.batchBytes;
    repository.batchBytes = 16 * 1024;
    try {
      const res = await fetch(`${t.baseUrl}/api/v1/export?format=csv`, { headers: { 'x-api-key': token } });
      const chunks: Uint8Array[] = [];
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        chunks.push(chunk);
        if (chunks.length % 50 === 0) await new Promise((r) => setTimeout(r, 5)); // a client slower than the batch
      }
      expect(Buffer.concat(chunks).toString() === whole).toBe(true);
    } finally {
      repository.batchBytes = bytes;
    }
  }, 120_000);

  // A batch's COPY runs on while its client reads: it must stop, its connection closed, when the client goes away.
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

/** What each host knows, as host_intel holds it: the titles are what a hostile page could set. */
interface Known {
  host: string;
  domain: string;
  a?: string[];
  aaaa?: string[];
  cname?: string[];
  status?: number;
  title?: string | null;
  outOfScope?: boolean;
}

const SEEN = new Date('2026-01-02T03:04:05.678Z');
const SEEN_ISO = '2026-01-02T03:04:05.678000Z';
const FIELDS = 'ips,cname,status,title';

/**
 * The export's exact bytes, whatever a title holds, and the same bytes however the export is cut into batches:
 * a.nest.test is a root inside nest.test, so x.a.nest.test is a host of both.
 */
describe('GET /export bytes', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let repository: ExportRepository;
  let defaultBatch: number;

  const known: Known[] = [
    { host: 'x.a.nest.test', domain: 'a.nest.test', a: ['10.0.0.1'], title: 'inner' },
    { host: 'a.nest.test', domain: 'nest.test', a: ['10.0.0.1', '10.0.0.2'], aaaa: ['::1'], status: 200, title: '' },
    { host: 'b.nest.test', domain: 'nest.test', cname: ['b.cdn.test', 'edge.cdn.test'], title: 'Say "hi", world' },
    { host: 'c.nest.test', domain: 'nest.test', title: 'tab\there, comma, "quote" \\ back\\slash \\N \\. end' },
    { host: 'd.nest.test', domain: 'nest.test', status: 503, title: 'two\nlines and cr\r\nlf' },
    { host: 'e.nest.test', domain: 'nest.test', title: "Café – 日本語 🚀 ''); DROP TABLE hosts; --" },
    { host: 'f.nest.test', domain: 'nest.test', status: 404, title: null },
    { host: 'g.nest.test', domain: 'nest.test' },
    { host: 'h.nest.test', domain: 'nest.test', title: 'out of scope', outOfScope: true },
    // What a hostile page or DNS server under a monitored root can make a spreadsheet run (CSV injection).
    { host: 'i.nest.test', domain: 'nest.test', title: '=HYPERLINK("http://evil.example/","open")' },
    { host: 'j.nest.test', domain: 'nest.test', cname: ['=1+1,@SUM(A1).evil.test', 'b.test'], title: '+1' },
    { host: 'k.nest.test', domain: 'nest.test', cname: ['-2.evil.test'], title: '-2+3' },
    { host: 'l.nest.test', domain: 'nest.test', title: '@SUM(1+1)*cmd|/C calc!A0' },
    { host: 'm.nest.test', domain: 'nest.test', title: '\tTAB first' },
    { host: 'n.nest.test', domain: 'nest.test', title: '\rCR first, "quoted"' },
    { host: 'o.nest.test', domain: 'nest.test', title: "'already text, and = + - @ later" },
    { host: 'x.a.nest.test', domain: 'nest.test', title: 'outer' },
    { host: 'z.nest.test', domain: 'nest.test', title: '"' },
  ];
  const shown = known.filter((k) => !k.outOfScope);

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    repository = t.app.get(ExportRepository);
    defaultBatch = repository.batchRows;
    for (const domain of ['nest.test', 'a.nest.test']) {
      const hosts = known.filter((k) => k.domain === domain).map((k) => ({ host: k.host, firstSeenAt: SEEN }));
      await seedDomain(t, { domain, platform: 'hackerone', hosts });
    }
    for (const k of known) {
      await t.dataSource.query(
        `INSERT INTO host_intel (host_id, a, aaaa, cname, http_status, title)
         SELECT h.id, $3, $4, $5, $6, $7 FROM hosts h JOIN domains d ON d.id = h.domain_id
          WHERE h.host = $1 AND d.domain = $2`,
        [k.host, k.domain, k.a ?? null, k.aaaa ?? null, k.cname ?? null, k.status ?? null, k.title],
      );
    }
    const write = bearer(await t.token(['read', 'write']));
    for (const k of known.filter((k) => k.outOfScope)) {
      expect((await t.post(`/domains/${k.domain}/exclusions`, { pattern: k.host }, write)).status).toBe(201);
    }
  });
  afterEach(() => (repository.batchRows = defaultBatch));
  afterAll(() => t.close());

  const ips = (k: Known) => [...(k.a ?? []), ...(k.aaaa ?? [])];
  const txt = (k: Known) =>
    [k.host, ips(k).join(' '), (k.cname ?? []).join(' '), k.status ?? '', (k.title ?? '').replaceAll('\t', ' ')].join(
      '\t',
    );
  /** Outside text as a CSV cell: quoted, and a single quote first inside the quotes where a formula could start. */
  const cell = (text: string | null | undefined) =>
    text === null || text === undefined ? '' : `"${/^[=+\-@\t\r]/.test(text) ? "'" : ''}${text.replaceAll('"', '""')}"`;
  const csv = (k: Known) =>
    [
      k.host,
      k.domain,
      'hackerone',
      SEEN_ISO,
      'true',
      ips(k).join(' '),
      cell(k.cname?.join(' ')),
      k.status ?? '',
      cell(k.title),
    ].join(',');
  const json = (k: Known) => ({
    host: k.host,
    domain: k.domain,
    platform: 'hackerone',
    first_seen_at: SEEN_ISO,
    is_active: true,
    sources: [],
    ips: ips(k),
    cname: k.cname ?? [],
    status: k.status ?? null,
    title: k.title ?? null,
  });

  const raw = async (query: string) => {
    const res = await fetch(`${t.baseUrl}/api/v1/export?${query}`, { headers: auth });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it('writes titles with quotes, commas, tabs, backslashes, line breaks and non-ASCII text byte for byte', async () => {
    expect((await raw(`fields=${FIELDS}`)).toString()).toBe(shown.map((k) => `${txt(k)}\n`).join(''));
    expect((await raw(`format=csv&fields=${FIELDS}`)).toString()).toBe(
      [`host,domain,platform,first_seen_at,is_active,${FIELDS}`, ...shown.map(csv)].map((l) => `${l}\r\n`).join(''),
    );
    const body = (await raw(`format=json&fields=${FIELDS}`)).toString();
    expect(body.startsWith('[\n{')).toBe(true);
    expect(body.endsWith('}\n]\n')).toBe(true);
    // One object a line, each JSON text of its own (a title's line break is escaped in it).
    const lines = body.slice(2, -3).split(',\n');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(shown.map(json));
    // Each object's keys in the documented order (docs/api.md), the fields after them in the order asked, and no spaces.
    expect(lines.map((l) => Object.keys(JSON.parse(l) as object).join())).toEqual(
      shown.map(() => `host,domain,platform,first_seen_at,is_active,sources,${FIELDS}`),
    );
    expect(lines.filter((l) => l !== JSON.stringify(JSON.parse(l)))).toEqual([]);
    const reordered = (await raw('format=json&fields=title,ips')).toString();
    expect(Object.keys(JSON.parse(reordered.slice(2, reordered.indexOf('\n', 2)).replace(/,$/, '')) as object)).toEqual(
      ['host', 'domain', 'platform', 'first_seen_at', 'is_active', 'sources', 'title', 'ips'],
    );
    expect((await raw('format=csv&domain=nest.test&fields=title&search=c.')).toString()).toBe(
      'host,domain,platform,first_seen_at,is_active,title\r\n' +
        `c.nest.test,nest.test,hackerone,${SEEN_ISO},true,"tab\there, comma, ""quote"" \\ back\\slash \\N \\. end"\r\n`,
    );
  });

  it('writes a title or a CNAME chain that starts like a formula as text: a single quote inside its quotes', async () => {
    const row = (search: string) => raw(`format=csv&domain=nest.test&fields=cname,title&search=${search}`);
    const head = 'host,domain,platform,first_seen_at,is_active,cname,title\r\n';
    const start = (host: string) => `${host},nest.test,hackerone,${SEEN_ISO},true,`;
    expect((await row('i.nest')).toString()).toBe(
      `${head}${start('i.nest.test')},"'=HYPERLINK(""http://evil.example/"",""open"")"\r\n`,
    );
    // The chain's comma stays inside its cell: nothing after it can start a cell of its own.
    expect((await row('j.nest')).toString()).toBe(
      `${head}${start('j.nest.test')}"'=1+1,@SUM(A1).evil.test b.test","'+1"\r\n`,
    );
    expect((await row('k.nest')).toString()).toBe(`${head}${start('k.nest.test')}"'-2.evil.test","'-2+3"\r\n`);
    expect((await row('m.nest')).toString()).toBe(`${head}${start('m.nest.test')},"'\tTAB first"\r\n`);
    expect((await row('n.nest')).toString()).toBe(`${head}${start('n.nest.test')},"'\rCR first, ""quoted"""\r\n`);
    expect((await row('o.nest')).toString()).toBe(
      `${head}${start('o.nest.test')},"'already text, and = + - @ later"\r\n`,
    );
    // The other formats carry the text as it is.
    expect((await raw('fields=title&search=i.nest')).toString()).toBe(
      'i.nest.test\t=HYPERLINK("http://evil.example/","open")\n',
    );
  });

  it('keeps the columns in the order fields= asks for them', async () => {
    const text = (await raw('fields=title,status&search=d.')).toString();
    expect(text).toBe('d.nest.test\ttwo\nlines and cr\r\nlf\t503\n');
  });

  it.each([1, 2, 3, 7])('gives the same bytes in batches of %i rows, a host of two roots included', async (rows) => {
    const queries = [
      'format=txt',
      `format=txt&fields=${FIELDS}`,
      'format=csv',
      `format=csv&fields=title,ips`,
      'format=json',
      `format=json&fields=${FIELDS}`,
      'host_scope=all',
      'format=csv&host_scope=out',
      'domain=nest.test&format=json',
      'platform=hackerone&search=.a.',
      'search=nothing-matches&format=json',
    ];
    const whole = await Promise.all(queries.map(raw));
    repository.batchRows = rows;
    for (const [i, query] of queries.entries())
      expect([query, (await raw(query)).toString()]).toEqual([query, whole[i].toString()]);
    expect((await raw('format=txt')).toString()).toBe(shown.map((k) => `${k.host}\n`).join(''));
  });

  it('takes hostile search text as text: quotes and backslashes cannot leave the literal', async () => {
    repository.batchRows = 2;
    for (const search of ["'", "x'); SELECT pg_sleep(5); --", "\\'", '\\', "' OR ''='", '$$', '%', '_']) {
      const res = await fetch(`${t.baseUrl}/api/v1/export?search=${encodeURIComponent(search)}`, { headers: auth });
      expect([search, res.status, await res.text()]).toEqual([search, 200, '']);
    }
    expect((await raw('search=X.A.NEST')).toString()).toBe('x.a.nest.test\nx.a.nest.test\n');
  });
});

describe('an export while a root domain is removed', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    for (const domain of ['aa.test', 'bb.test', 'cc.test']) {
      const hosts = ['a', 'b'].map((label) => ({ host: `${label}.${domain}`, firstSeenAt: hoursAgo(1) }));
      await seedDomain(t, { domain, platform: 'hackerone', hosts });
    }
  });
  afterAll(() => t.close());

  // Each batch resumes after the root domain the one before ended in. Looked up by id in the next batch, a root
  // removed in between had no name, and the export ended there as if it were whole.
  it('resumes after a root domain removed between two batches with the root domains that follow it', async () => {
    const [{ id }] = await t.dataSource.query(`SELECT id FROM domains WHERE domain = 'aa.test'`);
    await t.app.get(DomainsService).remove(['aa.test']);
    const filters = { fields: [], scope: 'all', hostScope: 'all', since: hoursAgo(1000).toISOString() } as const;
    const copy = batchStatement('txt', filters, { domainId: id, domain: 'aa.test', host: 'a.aa.test' }, 10);
    // The batch's query, without its COPY: the rows it would write.
    const query = copy.slice(copy.indexOf('COPY (') + 'COPY ('.length, copy.lastIndexOf(') TO STDOUT'));
    const rows: { line: string }[] = await t.dataSource.query(query);
    expect(rows.map((r) => Object.values(r)[1])).toEqual(['a.bb.test', 'b.bb.test', 'a.cc.test', 'b.cc.test']);
  });
});

/** first_seen_at as the export writes it: always six fraction digits, as stored, however many of them are zeros. */
describe('GET /export timestamps', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const stored = [
    ['a.stamp.test', '2026-01-02 03:04:05+00', '2026-01-02T03:04:05.000000Z'],
    ['b.stamp.test', '2026-01-02 03:04:05.12+00', '2026-01-02T03:04:05.120000Z'],
    ['c.stamp.test', '2026-01-02 03:04:05.000001+00', '2026-01-02T03:04:05.000001Z'],
    ['d.stamp.test', '2026-12-31 23:59:59.999999-01', '2027-01-01T00:59:59.999999Z'],
  ];

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    await seedDomain(t, { domain: 'stamp.test', platform: 'self', hosts: stored.map(([host]) => ({ host })) });
    for (const [host, at] of stored) {
      await t.dataSource.query(`UPDATE hosts SET first_seen_at = $2::timestamptz WHERE host = $1`, [host, at]);
    }
  });
  afterAll(() => t.close());

  it('writes a zero fraction and trailing zeros as six digits, in UTC, in csv and json', async () => {
    const csv = await t.get('/export?format=csv', auth);
    expect(csv.text).toBe(
      [
        'host,domain,platform,first_seen_at,is_active',
        ...stored.map(([h, , iso]) => `${h},stamp.test,self,${iso},true`),
      ]
        .map((l) => `${l}\r\n`)
        .join(''),
    );
    const json = await t.get('/export?format=json', auth);
    expect((JSON.parse(json.text) as { first_seen_at: string }[]).map((r) => r.first_seen_at)).toEqual(
      stored.map(([, , iso]) => iso),
    );
  });
});
