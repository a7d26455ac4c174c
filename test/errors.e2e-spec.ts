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
    // GET is allowed here too: /scans/rescan-all is also the path of GET /scans/{id}
    expect(onRescan.headers.get('allow')).toBe('GET, HEAD, POST');
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
