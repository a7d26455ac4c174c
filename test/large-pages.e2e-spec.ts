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

  it('compresses a large page to the very bytes a plain request gets', async () => {
    const plain = await get('/domains?limit=1000');
    const packed = await get('/domains?limit=1000', { 'accept-encoding': 'br' });
    expect([plain.headers['content-encoding'], packed.headers['content-encoding']]).toEqual([undefined, 'br']);
    expect(brotliDecompressSync(packed.body).equals(plain.body)).toBe(true);
  });
});
