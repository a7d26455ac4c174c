import fc from 'fast-check';
import { seedDomain } from './fixtures/data.js';
import { type ApiResponse, type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

const NASTY = [
  '%',
  '%%',
  '_',
  '\\',
  '\\%',
  "'",
  '"',
  "'; DROP TABLE hosts; --",
  '\u0000',
  'a\u0000b',
  '\u0007',
  '\r\n',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999',
  'NaN',
  'true',
  '',
  ' ',
  '０１',
  'ü',
  'xn--bcher-kva.de',
  '\ud800',
  '😀.com',
  '‮moc.elgoog',
  '../../etc/passwd',
  '<script>',
  'a'.repeat(5000),
  '[]',
  '{}',
  'c1.e30.AAAA',
];

/** A hostile query or path value: one of the known troublemakers, or anything at all. */
const hostile = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.integer().map(String),
  fc.double().map(String),
);

const ENDPOINTS: { path: string; params: string[] }[] = [
  { path: '/domains', params: ['search', 'platform', 'enabled', 'sort', 'limit', 'offset'] },
  { path: '/domains/{domain}', params: [] },
  { path: '/domains/{domain}/subdomains', params: ['filter', 'search', 'limit', 'offset'] },
  { path: '/domains/{domain}/subdomains/new', params: ['hours', 'since', 'limit'] },
  { path: '/subdomains/new', params: ['hours', 'since', 'limit', 'before_ts', 'before_id'] },
  { path: '/subdomains/search', params: ['q', 'limit', 'offset'] },
  { path: '/platforms/{slug}', params: [] },
  { path: '/platforms/{slug}/domains', params: ['limit', 'offset'] },
  { path: '/platforms/{slug}/subdomains', params: ['cursor', 'limit', 'program', 'active', 'format'] },
  { path: '/platforms/{slug}/subdomains/new', params: ['hours', 'since', 'limit'] },
  { path: '/scans', params: ['domain', 'platform', 'status', 'limit', 'offset'] },
  { path: '/scans/{id}', params: [] },
  { path: '/stats/top-domains', params: ['hours', 'since', 'limit'] },
  { path: '/stats/timeseries', params: ['bucket', 'hours', 'since'] },
  { path: '/export', params: ['domain', 'platform', 'scope', 'hours', 'search', 'format'] },
];

/** Percent-encodes anything, lone surrogates included (their UTF-8 replacement bytes). */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

function expectContractAnswer(res: ApiResponse, what: string): void {
  expect([what, res.status < 500]).toEqual([what, true]);
  if (res.status >= 400) {
    expect(res.body?.error?.code).toEqual(expect.any(String));
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  }
}

/**
 * Random and malicious values at every query parameter, path segment and auth header: the answer is always a
 * valid success or the contract's error, never a 500, never a hang (each request is bounded by jest's timeout).
 */
describe('hostile input', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    await seedDomain(t, {
      domain: 'lit.test',
      platform: 'hackerone',
      hosts: ['x%y.lit.test', 'a_b.lit.test', 'abc.lit.test', 'back\\slash.lit.test'.replace('\\', '-')],
    });
  });
  afterAll(() => t.close());

  it.each(ENDPOINTS)(
    'GET $path answers hostile parameters with a success or the contract error',
    async ({ path, params }) => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            segment: hostile,
            values: fc.array(fc.tuple(fc.constantFrom(...(params.length ? params : ['unnamed'])), hostile), {
              maxLength: 4,
            }),
          }),
          async ({ segment, values }) => {
            const concrete = path.replace(/\{[a-z]+\}/, encode(segment) || 'x');
            const query = values.map(([k, v]) => `${k}=${encode(v)}`).join('&');
            const res = await t.get(`${concrete}${query ? `?${query}` : ''}`, auth);
            expectContractAnswer(res, `${concrete}?${query}`.slice(0, 200));
          },
        ),
        { numRuns: 40 },
      );
    },
  );

  it('resolves dot segments as every URL parser does: /platforms/. is /platforms, /domains/.. is the index', async () => {
    const dot = await t.get('/platforms/.', auth);
    expect(dot.status).toBe(200);
    expect(dot.body.data.map((p: { slug: string }) => p.slug)).toContain('hackerone');
    const up = await t.get('/domains/..', auth);
    expect(up.status).toBe(200);
    expect(up.body.data.endpoints).toContain('GET /domains');
  });

  it('answers hostile auth headers with 401, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('authorization', 'x-api-key'),
        fc.oneof(
          // eslint-disable-next-line no-control-regex -- header values must be printable ASCII
          fc.constantFrom(...NASTY.filter((v) => !/[\r\n\u0000-\u001f]/.test(v) && /^[\x20-\x7e]*$/.test(v))),
          fc.string({ maxLength: 200 }).filter((v) => /^[\x20-\x7e]*$/.test(v)),
          fc.constant(`Bearer sm_live_${'A'.repeat(300)}`),
        ),
        async (header, value) => {
          const res = await t.get('/me', { [header]: value });
          expectContractAnswer(res, `${header}: ${value.slice(0, 80)}`);
          expect([401, 200]).toContain(res.status === 200 ? 200 : res.status);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('matches search text literally: % and _ find only themselves', async () => {
    const hosts = async (q: string) =>
      (await t.get(`/subdomains/search?q=${encodeURIComponent(q)}`, auth)).body.data.map(
        (h: { host: string }) => h.host,
      );
    // as patterns, '%.' and '__' would match every host; literally they match none
    expect(await hosts('x%')).toEqual(['x%y.lit.test']);
    expect(await hosts('%y')).toEqual(['x%y.lit.test']);
    expect(await hosts('%.')).toEqual([]);
    expect(await hosts('a_')).toEqual(['a_b.lit.test']);
    expect(await hosts('__')).toEqual([]);
  });

  it('answers repeated parameters and NUL bytes with 400 invalid_query naming the parameter', async () => {
    const repeated = await t.get('/domains?limit=1&limit=2', auth);
    expect([repeated.status, repeated.body.error.code]).toEqual([400, 'invalid_query']);
    expect(repeated.body.error.message).toContain('limit');
    const nul = await t.get('/subdomains/search?q=a%00b', auth);
    expect([nul.status, nul.body.error.code, nul.body.error.message]).toEqual([
      400,
      'invalid_query',
      'q must not contain control characters',
    ]);
    const slug = await t.get('/platforms/%00/subdomains', auth);
    expect([slug.status, slug.body.error.code]).toEqual([404, 'unknown_platform']);
  });
});
