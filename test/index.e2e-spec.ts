import { SseClient } from './fixtures/sse.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

describe('index, prefixes and health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each(['/api/v1', '/api/v1/', '/api/public/v1', '/api/public/v1/'])(
    'serves the public index at %s',
    async (path) => {
      const res = await t.get(path);
      expect(res.status).toBe(200);
      expect(res.body.data.version).toBe('1');
      expect(res.body.data.endpoints).toEqual(
        expect.arrayContaining(['GET /', 'GET /me', 'POST /scans', 'POST /scans/rescan-all']),
      );
    },
  );

  it('lists exactly the routes the server has, in "METHOD /path" form', async () => {
    const { endpoints } = (await t.get('/')).body.data as { endpoints: string[] };
    for (const entry of endpoints) expect(entry).toMatch(/^(GET|POST|DELETE) \/[a-z0-9/{}_.-]*$/);
    const token = await t.token();
    for (const entry of endpoints.filter((e) => e.startsWith('GET ') && !e.includes('{'))) {
      // The live stream never ends by itself: its status is all this needs.
      const status =
        entry === 'GET /subdomains/stream'
          ? await SseClient.open(`${t.baseUrl}/api/v1/subdomains/stream`, bearer(token)).then(async (c) => {
              await c.close();
              return c.status;
            })
          : (await t.get(entry.slice(4), bearer(token))).status;
      expect([entry, status]).toEqual([entry, entry === 'GET /subdomains/stream' ? 200 : expect.any(Number)]);
      expect(status).not.toBe(404);
    }
  });

  it('serves the same API under both prefixes', async () => {
    const token = await t.token();
    const a = await t.get('/api/v1/me', bearer(token));
    const b = await t.get('/api/public/v1/me', bearer(token));
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('answers the health probes without a token, outside the API prefix', async () => {
    const live = await t.get('/health/live');
    expect(live.status).toBe(200);
    expect(live.body.status).toBe('ok');
    const ready = await t.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details.database.status).toBe('up');
  });
});
