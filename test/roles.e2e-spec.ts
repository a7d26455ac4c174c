import { NEVER } from './fixtures/worker.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';

/** One image, three roles: API only (WORKER=off), worker only (HTTP=off), or both. */
describe('process roles', () => {
  let api: TestApp;
  let worker: TestApp;

  beforeAll(async () => {
    api = await startTestApp({ WORKER: 'off' });
    worker = await startTestApp({ HTTP: 'off', WORKER: 'on', WORKER_CRON: NEVER }, { shareDatabaseOf: api });
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
  });

  it('a worker-only process answers its health probes', async () => {
    const live = await worker.get('/health/live');
    expect(live.status).toBe(200);
    const ready = await worker.get('/health/ready?verbose=1');
    expect(ready.status).toBe(200);
    expect(ready.body.details.database.status).toBe('up');
  });

  it.each(['/me', '/', '/openapi.json', '/subdomains/new', '/api/public/v1/me'])(
    'a worker-only process serves no API: %s is 404 not_found',
    async (path) => {
      const token = await api.token();
      const res = await worker.get(path, bearer(token));
      expectError(res, 404, 'not_found');
      expect(res.body.error.message).toMatch(/HTTP=off/);
    },
  );

  it('an API-only process serves the API on the same database', async () => {
    const res = await api.get('/me', bearer(await api.token()));
    expect(res.status).toBe(200);
  });
});
