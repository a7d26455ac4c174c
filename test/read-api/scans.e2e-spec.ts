import { randomUUID } from 'node:crypto';
import { hoursAgo, seedDomain, seedScan } from '../fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from '../fixtures/test-app.js';

describe('GET /scans, /scans/{id} and /scans/status', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let firstId: string;

  beforeAll(async () => {
    t = await startTestApp({ SCAN_INTERVAL_HOURS: 24 });
    auth = bearer(await t.token());
    const a = await seedDomain(t, { domain: 'a.com', platform: 'hackerone', lastScannedAt: hoursAgo(1) });
    const b = await seedDomain(t, { domain: 'b.com', platform: 'bugcrowd', lastScannedAt: hoursAgo(30) });
    await seedDomain(t, { domain: 'c.com', enabled: false });
    firstId = (await seedScan(t, a, { startedAt: hoursAgo(5), newCount: 3, foundCount: 10 })).id;
    await seedScan(t, b, {
      startedAt: hoursAgo(2),
      status: 'error',
      error: 'crt.sh answered 502 three times',
      trigger: 'api',
    });
    await seedScan(t, a, { startedAt: new Date(Date.now() - 600_000), status: 'success', trigger: 'cli' });
    await seedScan(t, b, { startedAt: new Date(Date.now() - 60_000), status: 'running' });
    await t.dataSource.query(`UPDATE domains SET next_scan_at = now() - interval '1 minute' WHERE domain = 'b.com'`);
    await t.post('/scans', { domain: 'a.com' }, bearer(await t.token(['read', 'write'])));
  });
  afterAll(() => t.close());

  const triggers = (body: { data: { trigger: string }[] }) => body.data.map((s) => s.trigger);

  it('lists scans newest first with their domain and counts', async () => {
    const res = await t.get('/scans', auth);
    expect(triggers(res.body)).toEqual(['cron', 'cli', 'api', 'cron']);
    expect(res.body.meta).toEqual({ limit: 50, offset: 0, total: 4 });
    const oldest = res.body.data[3];
    expect(oldest).toEqual({
      id: firstId,
      domain: 'a.com',
      platform: 'hackerone',
      trigger: 'cron',
      status: 'success',
      found_count: 10,
      new_count: 3,
      reactivated_count: 0,
      inactive_count: 0,
      dropped_count: 0,
      source_stats: {}, // a scan seeded by the test ran no source
      error: null,
      started_at: expect.any(String),
      finished_at: expect.any(String),
      duration_ms: 1500,
    });
    expect(res.body.data[0]).toMatchObject({ status: 'running', finished_at: null, duration_ms: null });
  });

  it('filters by domain, platform and status, and pages', async () => {
    expect(triggers((await t.get('/scans?domain=a.com', auth)).body)).toEqual(['cli', 'cron']);
    expect(triggers((await t.get('/scans?platform=bugcrowd', auth)).body)).toEqual(['cron', 'api']);
    const errors = (await t.get('/scans?status=error', auth)).body;
    expect(errors.data).toHaveLength(1);
    expect(errors.data[0].error).toBe('crt.sh answered 502 three times');
    const latest = (await t.get('/scans?domain=a.com&limit=1', auth)).body;
    expect(latest.data.map((s: { trigger: string }) => s.trigger)).toEqual(['cli']);
    expect(latest.meta).toEqual({ limit: 1, offset: 0, total: 2 });
    // Past the end of a tracked domain's scans: an empty page that still counts them.
    const past = await t.get('/scans?domain=a.com&offset=40', auth);
    expect([past.status, past.body.data, past.body.meta]).toEqual([200, [], { limit: 50, offset: 40, total: 2 }]);
    // A tracked domain without a matching scan is an empty page, not a 404: c.com has none, a.com no error.
    for (const path of ['/scans?domain=c.com', '/scans?domain=a.com&status=error', '/scans?domain=c.com&offset=40']) {
      const empty = await t.get(path, auth);
      expect({ path, status: empty.status, data: empty.body.data, total: empty.body.meta.total }).toEqual({
        path,
        status: 200,
        data: [],
        total: 0,
      });
    }
    expect((await t.get('/scans?limit=9999', auth)).body.meta.limit).toBe(500);
  });

  it('answers bad filters with the contract errors', async () => {
    expectError(await t.get('/scans?status=done', auth), 400, 'invalid_query');
    expectError(await t.get('/scans?platform=x', auth), 400, 'invalid_query');
    expectError(await t.get('/scans?domain=A.com', auth), 400, 'invalid_domain');
    expectError(await t.get('/scans?domain=zzz.com', auth), 404, 'not_found');
    expectError(await t.get('/scans?domain=zzz.com&status=error&offset=10', auth), 404, 'not_found');
  });

  it('shows one scan by id; a malformed id is 400 invalid_id, an unknown one 404 not_found', async () => {
    const res = await t.get(`/scans/${firstId}`, auth);
    expect(res.body.data).toMatchObject({ id: firstId, domain: 'a.com', new_count: 3 });
    expectError(await t.get('/scans/not-a-uuid', auth), 400, 'invalid_id');
    expectError(await t.get('/scans/123', auth), 400, 'invalid_id');
    expectError(await t.get(`/scans/${randomUUID()}`, auth), 404, 'not_found');
  });

  it('reports the worker status from the real state', async () => {
    const res = await t.get('/scans/status', auth);
    expect(res.body.data).toEqual({
      health: {
        running_scans: 1,
        scanned_30m: 1,
        errors_30m: 0,
        last_error: 'crt.sh answered 502 three times',
        last_error_at: expect.any(String),
      },
      cycle: {
        due_domains: 2,
        total_domains: 3,
        enabled_domains: 2,
        queued_domains: 1,
        sweep_coverage: 0.5,
        interval_hours: 24,
      },
    });
  });
});
