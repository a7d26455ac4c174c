import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';

describe('the error contract', () => {
  let t: TestApp;
  let writer: string;

  beforeAll(async () => {
    t = await startTestApp();
    writer = await t.token(['read', 'write']);
    await t.dataSource.query(`INSERT INTO domains (domain, platform_slug) VALUES ('example.com', 'hackerone')`);
  });
  afterAll(() => t.close());

  const postScans = (body: string | undefined, contentType?: string) =>
    t.request('POST', '/scans', {
      body,
      headers: { ...bearer(writer), ...(contentType ? { 'content-type': contentType } : {}) },
    });

  it('answers an unknown route with 404 not_found, with or without a token', async () => {
    expectError(await t.get('/nothing-here'), 404, 'not_found');
    expectError(await t.get('/nothing-here', bearer(writer)), 404, 'not_found');
    expectError(await t.get('/api/v2/me'), 404, 'not_found');
  });

  it('answers what the router itself refuses (an over-long path segment, bad percent-encoding) in the error shape', async () => {
    expectError(await t.get(`/scans/${'a'.repeat(600)}`, bearer(writer)), 404, 'not_found');
    expectError(await t.get('/domains/%E0%A4%A', bearer(writer)), 404, 'not_found');
  });

  it('answers a known path with the wrong verb with 405 method_not_allowed and an Allow header', async () => {
    const res = await t.request('DELETE', '/me', { headers: bearer(writer) });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    const onScans = await t.request('PUT', '/scans');
    expectError(onScans, 405, 'method_not_allowed');
    expect(onScans.headers.get('allow')).toBe('GET, HEAD, POST');
    const onRescan = await t.request('DELETE', '/api/public/v1/scans/rescan-all');
    expectError(onRescan, 405, 'method_not_allowed');
    // Only POST: the path is POST /scans/rescan-all's own, and only a parameter of GET /scans/{id}.
    expect(onRescan.headers.get('allow')).toBe('POST');
  });

  it.each(['GET', 'HEAD', 'PUT', 'DELETE'])(
    'answers %s /scans/rescan-all, a path of POST, with 405 and Allow: POST, before the key check',
    async (method) => {
      for (const headers of [{}, bearer(writer)]) {
        const res = await t.request(method, '/scans/rescan-all', { headers });
        expect([method, res.status, res.headers.get('allow')]).toEqual([method, 405, 'POST']);
        if (method !== 'HEAD') expectError(res, 405, 'method_not_allowed');
      }
      // A real id is still GET /scans/{id}'s.
      expectError(await t.get('/scans/not-a-uuid', bearer(writer)), 400, 'invalid_id');
    },
  );

  it('answers a method the path does not have, sent without Content-Type, with 405 or 404 before the key check', async () => {
    for (const headers of [{}, bearer(writer), { ...bearer(writer), 'content-type': 'application/json' }]) {
      const body = headers['content-type' as keyof typeof headers] ? '{}' : undefined;
      const me = await t.request('QUERY', '/me', { headers, body });
      expectError(me, 405, 'method_not_allowed');
      expect(me.headers.get('allow')).toBe('GET, HEAD');
      expectError(await t.request('QUERY', '/nothing-here', { headers, body }), 404, 'not_found');
      const scans = await t.request('QUERY', '/scans', { headers, body });
      expect([scans.status, scans.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST']);
    }
  });

  it.each([
    ['POST', '/webhooks//test'],
    ['GET', '/webhooks//deliveries'],
    ['POST', '/webhooks//deliveries//retry'],
    ['GET', '/domains//subdomains'],
    ['GET', '/domains//subdomains/new'],
    ['GET', '/platforms//domains'],
    ['GET', '/platforms//subdomains'],
    ['GET', '//me'],
  ])('answers %s %s, an empty path segment, with 404 not_found', async (method, path) => {
    for (const headers of [{}, bearer(writer)]) {
      const res = await t.request(method, `/api/v1${path}`, { headers });
      expectError(res, 404, 'not_found');
      expect(res.headers.get('allow')).toBeNull();
    }
  });

  it('clamps a limit of any number of digits, and says what it refuses', async () => {
    for (const limit of ['1001', '999999999999999', '1234567890123456', '9'.repeat(400), '00000000000000000005000']) {
      const res = await t.get(`/domains?limit=${limit}`, bearer(writer));
      expect([limit.length, res.status, res.body.meta?.limit]).toEqual([limit.length, 200, 1000]);
    }
    expect((await t.get('/domains?limit=007', bearer(writer))).body.meta.limit).toBe(7);
    const zero = await t.get('/domains?limit=0', bearer(writer));
    expectError(zero, 400, 'invalid_query');
    expect(zero.body.error.message).toBe('limit must be at least 1 (a larger value than 1000 is clamped to 1000)');
    for (const limit of ['-1', '1.5', '1e3', 'ten', '+5', ' 5']) {
      const res = await t.get(`/domains?limit=${encodeURIComponent(limit)}`, bearer(writer));
      expectError(res, 400, 'invalid_query');
      expect([limit, res.body.error.message]).toEqual([
        limit,
        'limit must be a whole number written in digits only, such as 100',
      ]);
    }
    const twice = await t.get('/domains?limit=5&limit=6', bearer(writer));
    expect([twice.status, twice.body.error.message]).toEqual([400, 'limit must be given once']);
  });

  it.each([
    ['no body', undefined, undefined],
    ['malformed JSON', '{"domain":', 'application/json'],
    ['an empty JSON body', '', 'application/json'],
    ['a JSON array', '["example.com"]', 'application/json'],
    ['a JSON string', '"example.com"', 'application/json'],
    ['a body without domain', '{}', 'application/json'],
    ['a domain that is not a string', '{"domain":42}', 'application/json'],
    ['a non-JSON content type', 'domain=example.com', 'application/x-www-form-urlencoded'],
    ['an XML body', '<domain>example.com</domain>', 'application/xml'],
  ])('answers POST /scans with %s with 400 invalid_body', async (_, body, type) => {
    expectError(await postScans(body, type), 400, 'invalid_body');
  });

  it.each([
    'Example.com',
    'https://example.com',
    'example.com/path',
    'www.example.com',
    'localhost',
    'exa mple.com',
    '-bad-.com',
  ])('answers POST /scans with domain %j with 400 invalid_domain', async (domain) => {
    expectError(await postScans(JSON.stringify({ domain }), 'application/json'), 400, 'invalid_domain');
  });

  it('answers an untracked domain with 404 not_found', async () => {
    expectError(await postScans('{"domain":"untracked.org"}', 'application/json'), 404, 'not_found');
  });

  it('answers a body over 16 KiB with 413 in the error shape', async () => {
    const res = await postScans(JSON.stringify({ domain: 'a'.repeat(17 * 1024) }), 'application/json');
    expectError(res, 413, 'payload_too_large');
  });

  it('answers 500 query_failed, without SQL in the message, when a query fails', async () => {
    await t.dataSource.query('ALTER TABLE domains RENAME TO domains_away');
    try {
      const res = await postScans('{"domain":"example.com"}', 'application/json');
      expectError(res, 500, 'query_failed');
      expect(res.body.error.message).not.toMatch(/domains|relation|select|update/i);
    } finally {
      await t.dataSource.query('ALTER TABLE domains_away RENAME TO domains');
    }
  });

  it('keeps a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const kept = await t.get('/me', { 'x-request-id': 'client-trace-42' });
    expect(kept.headers.get('x-request-id')).toBe('client-trace-42');
    expect(kept.body.request_id).toBe('client-trace-42');
    const replaced = await t.get('/me', { 'x-request-id': 'bad id with spaces\u0000'.replace('\u0000', '') });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.body.request_id).toBe(replaced.headers.get('x-request-id'));
  });

  it('puts X-Request-Id on successful responses too, a new one per request', async () => {
    const a = await t.get('/');
    const b = await t.get('/');
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});
