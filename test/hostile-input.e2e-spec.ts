import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { normalizeTimestamp } from '../src/common/validation/query-params.js';
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

const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
/**
 * Timestamps of every shape PostgreSQL might read, mostly plausible, often just out of range: years 0 to 10000,
 * month 13, day 32, hour 24, second 60 and 61, 0 to 12 fraction digits, 'T', 't' or a space, 'Z', 'z', no zone,
 * or offsets up to ±99:99 with or without a colon.
 */
const timestampish = fc
  .record({
    year: fc.oneof(fc.constantFrom('0000', '1969', '1970', '2024', '9999', '10000'), digits(4, 9999)),
    month: digits(2, 13),
    day: digits(2, 32),
    time: fc.option(
      fc.record({
        sep: fc.constantFrom('T', 't', ' '),
        hour: digits(2, 25),
        minute: digits(2, 61),
        second: fc.option(digits(2, 61)),
        fraction: fc.option(fc.stringMatching(/^[0-9]{1,12}$/)),
        zone: fc.oneof(
          fc.constantFrom('Z', 'z', ''),
          fc
            .tuple(fc.constantFrom('+', '-'), digits(2, 99), fc.constantFrom(':', ''), digits(2, 99))
            .map((p) => p.join('')),
        ),
      }),
    ),
  })
  .map(({ year, month, day, time }) => {
    const date = `${year}-${month}-${day}`;
    if (!time) return date;
    const seconds = time.second === null ? '' : `:${time.second}${time.fraction === null ? '' : `.${time.fraction}`}`;
    return `${date}${time.sep}${time.hour}:${time.minute}${seconds}${time.zone}`;
  });

/** The endpoints that take a timestamp, and how: `since` of a window, or the feed cursor's `before_ts`. */
const TIMESTAMP_PARAMS = [
  '/domains/lit.test/subdomains/new?since=',
  '/subdomains/new?since=',
  '/subdomains/new?before_id=1&before_ts=',
  '/platforms/hackerone/subdomains/new?since=',
  '/stats/top-domains?since=',
  '/stats/timeseries?bucket=hour&since=',
  '/export?scope=new&since=',
];

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
  it('reads every timestamp as PostgreSQL does: accepted ones mean the same instant, the rest are 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(timestampish, fc.constantFrom(...TIMESTAMP_PARAMS), async (value, prefix) => {
        const res = await t.get(`${prefix}${encodeURIComponent(value)}`, auth);
        expectContractAnswer(res, `${prefix}${value}`);
        expect([value, [200, 400]]).toEqual([value, expect.arrayContaining([res.status])]);
        if (res.status === 400) {
          // Refused as a timestamp, or (a window of hour buckets reaching back decades) as too long a series.
          expect(res.body.error).toEqual({ code: 'invalid_query', message: expect.stringMatching(/ISO 8601|buckets/) });
          return;
        }
        // Accepted: PostgreSQL reads the same instant from what was sent as from what the service queried with.
        const served = normalizeTimestamp(value);
        const [read] = await t.dataSource.query(
          `SELECT $1::timestamptz = $2::timestamptz AS same, extract(year FROM $1::timestamptz AT TIME ZONE 'UTC') AS y`,
          [value, served],
        );
        expect([value, served, read.same, Number(read.y) >= 1970 && Number(read.y) <= 9999]).toEqual([
          value,
          expect.any(String),
          true,
          true,
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it('answers the timestamps PostgreSQL refuses with 400, and reads the ones it accepts exactly', async () => {
    for (const bad of [
      '2024-01-01T00:00:00+99:00',
      '2024-01-01T00:00:00+16:00',
      '2024-01-01T00:00:00+01:60',
      '2024-01-01T00:00:61Z',
      '2024-01-01T23:59:60.1Z',
      '9999-01-01T23:59:60.000001Z',
      '0000-01-01',
      '10000-01-01T00:00:00Z',
      '2026-02-29',
      '9999-12-31T23:59:60-15:59',
    ]) {
      for (const prefix of ['/domains/lit.test/subdomains/new?since=', '/stats/timeseries?since=']) {
        const res = await t.get(`${prefix}${encodeURIComponent(bad)}`, auth);
        expect([bad, res.status, res.body.error?.code]).toEqual([bad, 400, 'invalid_query']);
      }
    }
    const epoch = async (v: string) =>
      Number((await t.dataSource.query(`SELECT extract(epoch FROM $1::timestamptz)::float8 AS e`, [v]))[0].e);
    for (const good of [
      '2024-01-01T00:00:00+15:59',
      '2024-01-01 00:00:00z',
      '2024-01-01t23:59:60Z',
      '2024-01-01T23:59:60.0000005Z', // a leap second whose fraction rounds to none
      '2024-03-01T00:00:00.1234567890-0230',
      // halves of a microsecond round to the even neighbour, as C's rint() does in PostgreSQL
      '2024-03-01T00:00:00.0000005Z',
      '2024-03-01T00:00:00.0000015Z',
    ]) {
      const res = await t.get(`/domains/lit.test/subdomains/new?since=${encodeURIComponent(good)}`, auth);
      expect([good, res.status]).toEqual([good, 200]);
      expect(await epoch(res.body.meta.since as string)).toBeCloseTo(await epoch(good), 6);
    }
  });

  it('answers a platform cursor forged with a valid checksum and a NUL or any non-name with 400, never a 500', async () => {
    const forge = (domain: string, host: string) => {
      const payload = Buffer.from(JSON.stringify([domain, host])).toString('base64url');
      const sum = createHash('sha256')
        .update(`subdomain-monitor:platform-cursor:${payload}`)
        .digest('base64url')
        .slice(0, 12);
      return `c1.${payload}.${sum}`;
    };
    for (const [domain, host] of [
      ['lit.test', 'a\u0000b.lit.test'],
      ['lit\u0000.test', 'abc.lit.test'],
      ['lit.test', 'x'.repeat(300)],
      ['lit.test', 'a\u001bb.lit.test'],
      ['', 'abc.lit.test'],
    ]) {
      const res = await t.get(`/platforms/hackerone/subdomains?cursor=${forge(domain, host)}`, auth);
      expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_query']);
    }
    const honest = await t.get(`/platforms/hackerone/subdomains?cursor=${forge('lit.test', 'abc.lit.test')}`, auth);
    expect(honest.status).toBe(200);
  });
});
