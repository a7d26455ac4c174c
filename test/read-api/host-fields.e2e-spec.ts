import { hoursAgo, seedDomain } from '../fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from '../fixtures/test-app.js';

/**
 * Lean host rows and knowledge on request: every host list's default row has exactly its documented keys, each
 * name of fields= adds exactly its key (or its column in txt and csv), unknown names are refused, and the filters
 * on what is known work without asking for it.
 */
describe('host rows: lean by default, fields on request', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const base = Date.now();

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token(['read', 'write']));
    await seedDomain(t, {
      domain: 'lean.test',
      platform: 'intigriti',
      hosts: [
        { host: 'api.lean.test', firstSeenAt: hoursAgo(1, base), sources: ['ct'] },
        { host: 'cdn.lean.test', firstSeenAt: hoursAgo(2, base), sources: ['crtsh'] },
        { host: 'echo.lean.test', firstSeenAt: hoursAgo(3, base), sources: ['dns'] },
        { host: 'bare.lean.test', firstSeenAt: hoursAgo(4, base), sources: ['ct'] },
        { host: 'hidden.lean.test', firstSeenAt: hoursAgo(5, base), sources: ['ct'] },
      ],
    });
    // What the resolver and the prober would have kept (host_intel), written as they write it.
    await t.dataSource.query(
      `INSERT INTO host_intel (host_id, dns_status, a, aaaa, cname, resolved_at, listening, scheme, port, http_status,
                               title, server, content_length, probed_at, dns_takeover, wildcard, out_of_scope)
       SELECT h.id, v.dns_status, v.a, v.aaaa, v.cname, now(), v.listening, v.scheme, v.port, v.http_status,
              v.title, v.server, v.content_length, CASE WHEN v.listening IS NOT NULL THEN now() END, v.takeover,
              v.wildcard, v.out_of_scope
         FROM (VALUES
           ('api.lean.test', 'resolved', '{192.0.2.1}'::text[], '{2001:db8::1}'::text[], NULL::text[], true, 'https',
            443, 200, 'API', 'nginx', 12::bigint, NULL::jsonb, NULL::boolean, NULL::boolean),
           ('cdn.lean.test', 'nxdomain', NULL, NULL, '{gone.cloud.test}', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            '{"service": "Cloud", "status": "Vulnerable", "evidence": "NXDOMAIN", "vulnerable": true}', NULL, NULL),
           ('echo.lean.test', 'resolved', '{192.0.2.80}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            true, NULL),
           ('hidden.lean.test', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
         ) AS v(host, dns_status, a, aaaa, cname, listening, scheme, port, http_status, title, server, content_length,
                takeover, wildcard, out_of_scope)
         JOIN hosts h ON h.host = v.host`,
    );
    // An exclusion rule sets its host out of scope, as an operator's would.
    expect((await t.post('/domains/lean.test/exclusions', { pattern: 'hidden.lean.test' }, auth)).status).toBe(201);
  });
  afterAll(() => t.close());

  const rows = async (path: string) => {
    const res = await t.get(path, auth);
    expect([path, res.status]).toEqual([path, 200]);
    return res.body.data as Record<string, unknown>[];
  };
  const row = async (path: string, host = 'api.lean.test') => (await rows(path)).find((r) => r.host === host)!;

  /** Each host list, and the keys of its default row, in order. */
  const LISTS: [string, string[]][] = [
    ['/domains/lean.test/subdomains', ['id', 'host', 'first_seen_at', 'is_active', 'sources', 'in_scope']],
    ['/domains/lean.test/subdomains/new', ['id', 'host', 'first_seen_at', 'sources', 'in_scope']],
    ['/subdomains/new', ['id', 'host', 'domain', 'first_seen_at', 'sources', 'in_scope']],
    ['/subdomains/search?q=lean', ['id', 'host', 'domain', 'first_seen_at', 'is_active', 'sources', 'in_scope']],
    ['/platforms/intigriti/subdomains', ['host', 'domain', 'is_active', 'sources', 'in_scope']],
    ['/platforms/intigriti/subdomains/new', ['id', 'host', 'domain', 'first_seen_at', 'sources', 'in_scope']],
  ];
  const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

  it.each(LISTS)('%s: a default row has exactly the documented keys', async (path, keys) => {
    for (const r of await rows(path)) expect(Object.keys(r)).toEqual(keys);
  });

  /** What each field adds to api.lean.test's row (resolved, probed) and to bare.lean.test's (nothing known). */
  const KNOWN: Record<string, [unknown, unknown]> = {
    dns: [
      {
        status: 'resolved',
        a: ['192.0.2.1'],
        aaaa: ['2001:db8::1'],
        cname: [],
        resolved_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      },
      null,
    ],
    http: [
      {
        listening: true,
        scheme: 'https',
        port: 443,
        status: 200,
        final_url: 'https://api.lean.test/',
        title: 'API',
        server: 'nginx',
        content_length: 12,
        tls: null,
        probed_at: expect.any(String),
      },
      null,
    ],
    takeover: [null, null],
    wildcard: [false, false],
    ips: [['192.0.2.1', '2001:db8::1'], []],
    cname: [[], []],
    status: [200, null],
    title: ['API', null],
  };

  it.each(LISTS)('%s: each field adds exactly its key, after the default ones', async (path, keys) => {
    for (const [field, [known, none]] of Object.entries(KNOWN)) {
      const asked = withQuery(path, `fields=${field}`);
      const api = await row(asked);
      expect([field, Object.keys(api)]).toEqual([field, [...keys, field]]);
      expect([field, api[field]]).toEqual([field, known]);
      expect([field, (await row(asked, 'bare.lean.test'))[field]]).toEqual([field, none]);
    }
    // Several, in the order asked, each once.
    const several = await row(withQuery(path, 'fields=title,dns,ips,title'));
    expect(Object.keys(several)).toEqual([...keys, 'title', 'dns', 'ips']);
  });

  it.each(LISTS)('%s: an unknown field is 400 invalid_query naming the valid ones', async (path) => {
    const res = await t.get(withQuery(path, 'fields=ips,bogus'), auth);
    expectError(res, 400, 'invalid_query');
    expect(res.body.error.message).toContain('dns, http, takeover, wildcard, ips, cname, status, title');
    expectError(await t.get(withQuery(path, 'fields='), auth), 400, 'invalid_query');
  });

  it('shows takeover and wildcard as the objects they are, and in_scope read only where the list shows both', async () => {
    expect(await row('/domains/lean.test/subdomains?fields=takeover', 'cdn.lean.test')).toMatchObject({
      takeover: { service: 'Cloud', status: 'Vulnerable', evidence: 'NXDOMAIN' },
    });
    expect((await row('/domains/lean.test/subdomains?fields=takeover', 'cdn.lean.test')).takeover).not.toHaveProperty(
      'vulnerable',
    );
    expect(await row('/domains/lean.test/subdomains?fields=wildcard', 'echo.lean.test')).toMatchObject({
      wildcard: true,
    });
    const both = await rows('/domains/lean.test/subdomains?scope=all');
    expect(both.map((r) => [r.host, r.in_scope])).toEqual([
      ['api.lean.test', true],
      ['cdn.lean.test', true],
      ['echo.lean.test', true],
      ['bare.lean.test', true],
      ['hidden.lean.test', false],
    ]);
    expect((await rows('/domains/lean.test/subdomains?scope=out')).map((r) => [r.host, r.in_scope])).toEqual([
      ['hidden.lean.test', false],
    ]);
  });

  it('filters by what is known without carrying it', async () => {
    const hosts = async (path: string) => (await rows(path)).map((r) => r.host);
    expect(await hosts('/domains/lean.test/subdomains?resolves=true')).toEqual(['api.lean.test', 'echo.lean.test']);
    expect(await hosts('/subdomains/search?q=lean&status=200')).toEqual(['api.lean.test']);
    expect(await hosts('/subdomains/new?takeover=true')).toEqual(['cdn.lean.test']);
    expect(await hosts('/subdomains/new?cname=cloud.test')).toEqual(['cdn.lean.test']);
    expect(await hosts('/subdomains/new?wildcard=only')).toEqual(['echo.lean.test']);
    for (const r of await rows('/domains/lean.test/subdomains?resolves=true&status=200&wildcard=exclude')) {
      expect(Object.keys(r)).toEqual(LISTS[0][1]);
    }
  });

  it('gives txt and csv rows every field as a column: the flat ones as values, the objects as their JSON', async () => {
    const txt = await t.get('/platforms/intigriti/subdomains?format=txt&fields=ips,status,title', auth);
    expect(txt.text.split('\n')).toContain('api.lean.test\t192.0.2.1 2001:db8::1\t200\tAPI');
    expect(txt.text.split('\n')).toContain('bare.lean.test\t\t\t');
    const csv = await t.get('/export?domain=lean.test&format=csv&fields=ips,cname', auth);
    expect(csv.text.split('\r\n')[0]).toBe('host,domain,platform,first_seen_at,is_active,ips,cname');
    expect(csv.text).toMatch(/\r\ncdn\.lean\.test,lean\.test,intigriti,[^,]+,true,,"gone\.cloud\.test"\r\n/);

    const objects = await t.get('/platforms/intigriti/subdomains?format=txt&fields=dns,wildcard,takeover', auth);
    const line = (host: string) =>
      objects.text
        .split('\n')
        .find((l) => l.startsWith(`${host}\t`))!
        .split('\t');
    const [, dns, wildcard, takeover] = line('api.lean.test');
    expect(JSON.parse(dns)).toEqual(KNOWN.dns[0]);
    expect([wildcard, takeover]).toEqual(['false', '']);
    expect(line('echo.lean.test')[2]).toBe('true');
    expect(JSON.parse(line('cdn.lean.test')[3])).toEqual({
      service: 'Cloud',
      status: 'Vulnerable',
      evidence: 'NXDOMAIN',
    });
    expect(line('bare.lean.test')).toEqual(['bare.lean.test', '', 'false', '']);

    const http = await t.get('/export?domain=lean.test&format=csv&fields=http', auth);
    const record = http.text.split('\r\n').find((r) => r.startsWith('api.lean.test,'))!;
    const cell = record.slice(record.indexOf(',"') + 1);
    expect(cell.startsWith('"') && cell.endsWith('"')).toBe(true);
    expect(JSON.parse(cell.slice(1, -1).replaceAll('""', '"'))).toEqual(KNOWN.http[0]);
    expect(http.text.split('\r\n').find((r) => r.startsWith('bare.lean.test,'))).toMatch(/,true,$/);
  });

  it('gives the json export every field, objects too', async () => {
    const res = await t.get('/export?domain=lean.test&format=json&fields=dns,http,wildcard', auth);
    const api = (res.body as Record<string, unknown>[]).find((r) => r.host === 'api.lean.test')!;
    expect(Object.keys(api)).toEqual([
      'host',
      'domain',
      'platform',
      'first_seen_at',
      'is_active',
      'sources',
      'dns',
      'http',
      'wildcard',
    ]);
    expect(api).toMatchObject({ dns: KNOWN.dns[0], http: KNOWN.http[0], wildcard: false });
    const bare = (res.body as Record<string, unknown>[]).find((r) => r.host === 'bare.lean.test')!;
    expect(bare).toMatchObject({ dns: null, http: null, wildcard: false });
  });

  it('keeps everything on GET /hosts/{host}', async () => {
    const res = await t.get('/hosts/api.lean.test', auth);
    expect(res.body.data).toMatchObject({
      dns: KNOWN.dns[0],
      http: KNOWN.http[0],
      takeover: null,
      wildcard: false,
      in_scope: true,
    });
  });
});
