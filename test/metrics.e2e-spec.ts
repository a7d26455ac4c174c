import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { NEVER, tickUntilIdle } from './fixtures/worker.js';

/** The value of one sample line of Prometheus text, e.g. value(text, 'scans_total{status="success"'). */
function value(text: string, prefix: string): number {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics', () => {
  it('are off unless METRICS=on', async () => {
    const t = await startTestApp();
    try {
      expectError(await t.get('/metrics'), 404, 'not_found');
    } finally {
      await t.close();
    }
  });

  describe('with METRICS=on', () => {
    let t: TestApp;
    let crt: LoopbackCrtsh;
    const METRICS_TOKEN = 'metrics-token-0123456789';

    beforeAll(async () => {
      crt = await new LoopbackCrtsh().start();
      t = await startTestApp({
        METRICS: 'on',
        METRICS_TOKEN,
        WORKER: 'on',
        WORKER_CRON: NEVER,
        CRTSH_URL: crt.url,
        SOURCE_ATTEMPTS: 1,
        SCAN_SOURCES: ['crtsh'],
      });
    });
    afterAll(async () => {
      await t.close();
      await crt.close();
    });

    const scrape = async () => {
      const res = await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };

    it('answer only the metrics token', async () => {
      expectError(await t.get('/metrics'), 401, 'missing_token');
      expectError(await t.get('/metrics', { authorization: 'Bearer wrong-token-0123456789' }), 401, 'invalid_token');
      expectError(await t.get('/metrics', bearer(await t.token())), 401, 'invalid_token');
    });

    it('count HTTP requests by method, route template and status, and show the pool', async () => {
      const key = bearer(await t.token());
      for (let i = 0; i < 3; i++) expect((await t.get('/me', key)).status).toBe(200);
      expectError(await t.get('/domains/unknown.com', key), 404, 'not_found');
      const text = await scrape();
      expect(
        value(text, 'http_request_duration_seconds_count{method="GET",route="/api/v1/me",status_code="200"}'),
      ).toBe(3);
      expect(
        value(
          text,
          'http_request_duration_seconds_count{method="GET",route="/api/v1/domains/:domain",status_code="404"}',
        ),
      ).toBe(1);
      expect(value(text, 'db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
      expect(value(text, 'db_pool_connections{state="waiting"}')).toBe(0);
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    });

    it('count scans by outcome and trigger, the hosts they discovered, the ticks, and the worker lag', async () => {
      const write = bearer(await t.token(['read', 'write']));
      for (const domain of ['ok.com', 'broken.com']) {
        await seedDomain(t, { domain, platform: 'self', enabled: false });
        expect((await t.post('/scans', { domain }, write)).status).toBe(202);
      }
      crt.names.set('ok.com', ['a.ok.com', 'b.ok.com', 'c.ok.com']);
      crt.failures.set('broken.com', 5);
      await tickUntilIdle(t);
      const text = await scrape();
      expect(value(text, 'scans_total{status="success",trigger="api"}')).toBe(1);
      expect(value(text, 'scans_total{status="error",trigger="api"}')).toBe(1);
      expect(value(text, 'hosts_discovered_total')).toBe(3);
      expect(value(text, 'worker_tick_duration_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(value(text, 'worker_lag_seconds')).toBeGreaterThanOrEqual(0);
    });
  });
});
