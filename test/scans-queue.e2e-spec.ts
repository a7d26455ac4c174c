import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

describe('queueing scans', () => {
  let t: TestApp;
  let writer: string;

  beforeAll(async () => {
    t = await startTestApp();
    writer = await t.token(['read', 'write']);
    await t.dataSource.query(
      `INSERT INTO domains (domain, platform_slug, enabled, next_scan_at)
       VALUES ('one.com', 'self', true, now() + interval '1 day'),
              ('two.com', 'bugcrowd', true, now() + interval '1 day'),
              ('off.com', 'self', false, now() + interval '1 day')`,
    );
  });
  afterAll(() => t.close());

  const queuedAt = async (domain: string): Promise<Date | null> =>
    (await t.dataSource.query(`SELECT queued_at FROM domains WHERE domain = $1`, [domain]))[0].queued_at;

  it('POST /scans answers 202 queued and marks the domain queued for the worker', async () => {
    expect(await queuedAt('one.com')).toBeNull();
    const res = await t.post('/scans', { domain: 'one.com' }, bearer(writer));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { domain: 'one.com', status: 'queued' } });
    expect(await queuedAt('one.com')).toBeInstanceOf(Date);
  });

  it('queueing a queued domain again keeps its place in the queue', async () => {
    await t.post('/scans', { domain: 'two.com' }, bearer(writer));
    const first = await queuedAt('two.com');
    const again = await t.post('/scans', { domain: 'two.com' }, bearer(writer));
    expect(again.status).toBe(202);
    expect(await queuedAt('two.com')).toEqual(first);
  });

  it('queueing a domain whose scan runs keeps the request for when that scan ends', async () => {
    await t.dataSource.query(
      `INSERT INTO domains (domain, platform_slug, enabled, next_scan_at)
       VALUES ('busy.com', 'self', false, now() + interval '1 day')`,
    );
    await t.dataSource.query(
      `INSERT INTO scans (domain_id, trigger, status, lease_until, worker_id)
       SELECT id, 'cron', 'running', now() + interval '5 minutes', 'another-worker' FROM domains WHERE domain = 'busy.com'`,
    );
    const res = await t.post('/scans', { domain: 'busy.com' }, bearer(writer));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { domain: 'busy.com', status: 'queued' } });
    expect(await queuedAt('busy.com')).toBeInstanceOf(Date);
    const status = (await t.get('/scans/status', bearer(writer))).body.data;
    expect(status.health.running_scans).toBe(1);
  });

  it('POST /scans/rescan-all makes every enabled domain due and counts them', async () => {
    const res = await t.post('/scans/rescan-all', undefined, bearer(writer));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { queued_domains: 2 } });
    const due: { domain: string }[] = await t.dataSource.query(
      `SELECT domain FROM domains WHERE next_scan_at <= now() ORDER BY domain`,
    );
    expect(due.map((d) => d.domain)).toEqual(['one.com', 'two.com']);
  });
});
