import { brotliDecompressSync } from 'node:zlib';
import { getRaw } from './fixtures/http.js';
import { type TestApp, startTestApp } from './fixtures/test-app.js';

/**
 * A page of more than 100,000 characters is sent as bytes rather than text (RenderedJson): it must read exactly as
 * a small page does, whatever its rows hold, revalidate to 304 and compress to the same bytes.
 */
describe('large pages', () => {
  let t: TestApp;
  let token: string;
  const DOMAINS = 600;
  const HOSTS = 1500;
  // Row text PostgreSQL escapes (quotes, backslashes, a line break, a tab) and characters of two, three and four
  // bytes in UTF-8: the page's line breaks between rows become commas, never one inside a row.
  const PROGRAM = 'Prögram 東京 "quoted" \\ back\nline\ttab 🦊';

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token(['read']);
    await t.dataSource.query(
      `INSERT INTO domains (domain, platform_slug, program)
       SELECT format('large-%s.test', lpad(i::text, 4, '0')), 'hackerone', $1 FROM generate_series(1, $2::int) i`,
      [PROGRAM, DOMAINS],
    );
    // The first domain's hosts, more than a page of the platform's walk holds.
    await t.dataSource.query(
      `INSERT INTO hosts (domain_id, host, first_seen_at, is_active)
       SELECT d.id, format('host-%s.a-label-long-enough-to-make-a-large-page.large-0001.test', lpad(i::text, 4, '0')),
              now() - interval '1 day', true
         FROM domains d, generate_series(1, $1::int) i WHERE d.domain = 'large-0001.test'`,
      [HOSTS],
    );
  });
  afterAll(() => t.close());

  /** One GET read off the wire (see getRaw). */
  const get = (path: string, headers: Record<string, string> = {}) =>
    getRaw(`${t.baseUrl}/api/v1${path}`, { authorization: `Bearer ${token}`, ...headers });

  it.each([
    ['large', 1000, DOMAINS],
    ['small', 5, 5],
  ])('a %s page reads as JSON row for row, and revalidates to 304', async (_, limit, rows) => {
    const { status, headers, body: bytes } = await get(`/domains?limit=${limit}`);
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(headers['content-length'])).toBe(bytes.length);
    expect(bytes.length > 100_000).toBe(limit === 1000);
    const body = JSON.parse(bytes.toString('utf8')) as { data: { domain: string; program: string }[]; meta: object };
    expect(body.data).toHaveLength(rows);
    expect(body.data.map((d) => d.domain)).toEqual(
      Array.from({ length: rows }, (_, i) => `large-${String(i + 1).padStart(4, '0')}.test`),
    );
    expect(body.data.every((d) => d.program === PROGRAM)).toBe(true);
    expect(body.meta).toEqual({ limit, offset: 0, total: DOMAINS });

    const etag = headers.etag;
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const again = await get(`/domains?limit=${limit}`, { 'if-none-match': etag ?? '' });
    expect([again.status, again.body.length, again.headers.etag]).toEqual([304, 0, etag]);
  });

  // A walk's page asks for one row more than it shows, to tell whether another page follows: a large page is cut
  // to its limit in its bytes, and the next page starts at the row after the last one shown.
  it('cuts a large page of a walk at its limit, and the next page goes on from there', async () => {
    const first = await get('/platforms/hackerone/subdomains?limit=1000');
    expect(first.body.length > 100_000).toBe(true);
    const page = JSON.parse(first.body.toString('utf8')) as { data: { host: string }[]; meta: { next_cursor: string } };
    expect(page.data).toHaveLength(1000);
    expect(page.meta.next_cursor).toEqual(expect.any(String));
    const next = await get(`/platforms/hackerone/subdomains?limit=1000&cursor=${page.meta.next_cursor}`);
    const rest = (JSON.parse(next.body.toString('utf8')) as { data: { host: string }[] }).data;
    const name = (i: number) =>
      `host-${String(i).padStart(4, '0')}.a-label-long-enough-to-make-a-large-page.large-0001.test`;
    expect([...page.data, ...rest].map((h) => h.host)).toEqual(Array.from({ length: HOSTS }, (_, i) => name(i + 1)));
  });

  it('compresses a large page to the very bytes a plain request gets', async () => {
    const plain = await get('/domains?limit=1000');
    const packed = await get('/domains?limit=1000', { 'accept-encoding': 'br' });
    expect([plain.headers['content-encoding'], packed.headers['content-encoding']]).toEqual([undefined, 'br']);
    expect(brotliDecompressSync(packed.body).equals(plain.body)).toBe(true);
  });
});
