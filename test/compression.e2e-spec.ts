import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { UsersService } from '../src/users/users.service.js';
import { seedDomain } from './fixtures/data.js';
import { type RawResponse, getRaw } from './fixtures/http.js';
import { type TestApp, startTestApp } from './fixtures/test-app.js';

/**
 * Compression negotiated from Accept-Encoding, read off the wire (fetch would decode it out of sight): br and gzip
 * bodies decode to exactly the plain body, a client that asks for neither gets the plain body, and small bodies
 * and the live stream are never compressed.
 */
describe('response compression', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token(['read']);
    const hosts = Array.from({ length: 300 }, (_, i) => `host-${i}.packed.test`);
    await seedDomain(t, { domain: 'packed.test', platform: 'hackerone', program: 'Packed', hosts });
  });
  afterAll(() => t.close());

  /** One GET read off the wire (see getRaw), with `acceptEncoding` when not null. */
  const get = (path: string, acceptEncoding: string | null, limit = Infinity) =>
    getRaw(
      `${t.baseUrl}${path}`,
      {
        authorization: `Bearer ${token}`,
        ...(acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }),
      },
      limit,
    );

  const decode = (raw: RawResponse) => {
    const encoding = raw.headers['content-encoding'];
    if (encoding === 'br') return brotliDecompressSync(raw.body);
    if (encoding === 'gzip') return gunzipSync(raw.body);
    return raw.body;
  };

  it.each([
    ['a JSON list', '/api/v1/domains/packed.test/subdomains?limit=500'],
    ['the bulk feed, json', '/api/v1/platforms/hackerone/subdomains'],
    ['the bulk feed, txt', '/api/v1/platforms/hackerone/subdomains?format=txt'],
    ['the txt export', '/api/v1/export?format=txt'],
    ['the CSV export', '/api/v1/export?format=csv'],
    ['the JSON export', '/api/v1/export?format=json'],
    ['the OpenAPI document', '/api/v1/openapi.json'],
  ])('%s: br and gzip decode to the very body a plain request gets', async (_, path) => {
    const plain = await get(path, null);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const [asked, used] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.1, gzip;q=0.9', 'gzip'],
    ]) {
      const packed = await get(path, asked);
      expect([asked, packed.status, packed.headers['content-encoding']]).toEqual([asked, 200, used]);
      expect(String(packed.headers.vary).toLowerCase()).toContain('accept-encoding');
      expect(packed.headers['content-type']).toBe(plain.headers['content-type']);
      expect(packed.body.length).toBeLessThan(plain.body.length / 2);
      expect(decode(packed).equals(plain.body)).toBe(true);
    }
    // An encoding the service does not offer, or identity, is the plain body.
    for (const asked of ['deflate', 'identity']) {
      const other = await get(path, asked);
      expect([asked, other.headers['content-encoding'], other.body.equals(plain.body)]).toEqual([
        asked,
        undefined,
        true,
      ]);
    }
  });

  it('leaves bodies under 1 KiB and errors as they are', async () => {
    const small = await get('/api/v1/domains/packed.test', 'br, gzip');
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    const error = await get('/api/v1/domains/missing.test', 'br, gzip');
    expect([error.status, error.headers['content-encoding']]).toEqual([404, undefined]);
    expect(JSON.parse(error.body.toString())).toMatchObject({ error: { code: 'not_found' } });
  });

  /** A signed-in browser's cookies: the sign-in form's CSRF cookie, then the session's. */
  const signIn = async (): Promise<string> => {
    await t.app.get(UsersService).create('pages@example.com', undefined, 'a long password');
    const form = await fetch(`${t.baseUrl}/account/sign-in`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const cookie = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]);
    const signedIn = await fetch(`${t.baseUrl}/account/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie(form).join('; ') },
      body: new URLSearchParams({ _csrf: csrf, email: 'pages@example.com', password: 'a long password' }).toString(),
    });
    expect(signedIn.status).toBe(303);
    return cookie(signedIn).join('; ');
  };

  // BREACH: a compressed page that reflects the request beside the same CSRF token on every response leaks the
  // token through the compressed sizes. HTML goes out as it is; JSON beside it is still compressed.
  it('never compresses an HTML page, though it asks for br or gzip and reflects the query beside a CSRF token', async () => {
    const cookie = await signIn();
    const reflected = 'host-1'.repeat(20);
    for (const path of [
      `/app/search?q=${reflected}`,
      `/app/domains/packed.test?filter=new&search=${reflected}`,
      '/app/domains/packed.test',
      '/account',
    ]) {
      for (const asked of ['br, gzip', 'gzip', 'br']) {
        const page = await getRaw(`${t.baseUrl}${path}`, { cookie, 'accept-encoding': asked });
        expect([path, asked, page.status, page.headers['content-type']]).toEqual([
          path,
          asked,
          200,
          'text/html; charset=utf-8',
        ]);
        expect([path, asked, page.headers['content-encoding']]).toEqual([path, asked, undefined]);
        expect(page.body.length).toBeGreaterThan(1024);
        expect(page.body.toString()).toContain('name="_csrf"');
      }
    }
    const json = await get('/api/v1/domains/packed.test/subdomains?limit=500', 'br, gzip');
    expect(json.headers['content-encoding']).toBe('br');
  });

  it('never compresses the live stream, whose events must not wait in a compressor', async () => {
    const stream = await get('/api/v1/subdomains/stream', 'br, gzip', 1);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['content-encoding']).toBeUndefined();
    expect(stream.body.toString()[0]).toMatch(/[:a-z]/); // readable text from the first byte
  });
});
