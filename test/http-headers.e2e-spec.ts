import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

const SECURITY_HEADERS = {
  'content-security-policy': expect.stringContaining("default-src 'self'"),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=15552000',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const headersOf = (res: { headers: Headers }) => Object.fromEntries(res.headers.entries());

describe('security headers', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
  });
  afterAll(() => t.close());

  it.each([
    ['a success', '/me', 200],
    ['an error', '/domains/not_a_domain', 400],
    ['a missing token', '/stats', 401],
    ['an unknown path', '/nope', 404],
    ['a path the router refuses', '/domains/%zz', 404],
    ['a streamed export', '/export', 200],
    ['a health probe', '/health/live', 200],
  ])('are on %s', async (_, path, status) => {
    const res = await t.get(path, path === '/stats' ? {} : auth);
    expect(res.status).toBe(status);
    expect(headersOf(res)).toMatchObject(SECURITY_HEADERS);
  });

  it('never let a page frame the API or run inline script, and never rewrite plain http to https', async () => {
    const csp = (await t.get('/me', auth)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('has CORS off unless CORS_ORIGINS is set: no Access-Control headers, preflight refused', async () => {
    const res = await t.get('/me', { ...auth, origin: 'https://evil.example' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await t.request('OPTIONS', '/me', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS_ORIGINS', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: ['https://app.example.com', 'http://localhost:5173'] });
    auth = bearer(await t.token());
  });
  afterAll(() => t.close());

  it('answers a listed origin with its own origin and the headers a client needs to read', async () => {
    const res = await t.get('/me', { ...auth, origin: 'https://app.example.com' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-expose-headers')).toBe('X-Request-Id, X-Next-Cursor, Content-Disposition');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('answers a preflight for the key headers', async () => {
    const res = await t.request('OPTIONS', '/scans', {
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, X-API-Key, Content-Type');
    expect(res.headers.get('access-control-max-age')).toBe('600');
  });

  it('gives an unlisted origin nothing to read the answer with', async () => {
    const res = await t.get('/me', { ...auth, origin: 'https://evil.example' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows any origin with *', async () => {
    const any = await startTestApp({ CORS_ORIGINS: ['*'] }, { shareDatabaseOf: t });
    try {
      const res = await any.get('/me', { ...auth, origin: 'https://anything.example' });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await any.close();
    }
  });
});
