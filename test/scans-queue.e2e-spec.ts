import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { crtshWorker, tickUntilIdle, worker } from './fixtures/worker.js';

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

/**
 * The contract: queueing a scan "asks for an immediate re-scan". A domain whose scan is running when it is asked
 * for gets that re-scan when the running one ends, whichever worker runs it.
 */
describe('a scan queued while the domain’s scan runs', () => {
  let crt: LoopbackCrtsh;
  let t: TestApp;
  let writer: Record<string, string>;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    t = await startTestApp(crtshWorker(crt));
    writer = bearer(await t.token(['read', 'write']));
    await seedDomain(t, { domain: 'running.test', nextScanAt: new Date(Date.now() + 86_400_000) });
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
  });

  const scans = async () =>
    ((await t.get('/scans?domain=running.test', writer)).body.data as { trigger: string; status: string }[]).map(
      (s) => [s.trigger, s.status],
    );

  it('runs once that scan ends, and reads the sources afresh', async () => {
    // Another worker's scheduled scan of the domain is running, and has read crt.sh before the new name came.
    await t.dataSource.query(
      `INSERT INTO scans (domain_id, trigger, status, lease_until, worker_id)
       SELECT id, 'cron', 'running', now() + interval '5 minutes', 'another-worker' FROM domains
        WHERE domain = 'running.test'`,
    );
    crt.names.set('running.test', ['www.running.test', 'new.running.test']);
    const queued = await t.post('/scans', { domain: 'running.test' }, writer);
    expect([queued.status, queued.body]).toEqual([202, { data: { domain: 'running.test', status: 'queued' } }]);

    // While it runs, the worker passes the domain over and the request waits.
    expect((await worker(t).tick()).outcomes).toEqual([]);
    expect((await t.get('/scans/status', writer)).body.data.cycle.queued_domains).toBe(1);

    await t.dataSource.query(
      `UPDATE scans SET status = 'success', finished_at = now(), lease_until = NULL, worker_id = NULL
        WHERE worker_id = 'another-worker'`,
    );
    expect((await tickUntilIdle(t)).map((o) => o.status)).toEqual(['success']);
    expect(await scans()).toEqual([
      ['api', 'success'],
      ['cron', 'success'],
    ]);
    const hosts = (await t.get('/domains/running.test/subdomains', writer)).body.data as { host: string }[];
    expect(hosts.map((h) => h.host).sort()).toEqual(['new.running.test', 'www.running.test']);
    expect((await t.get('/scans/status', writer)).body.data.cycle.queued_domains).toBe(0);
  });

  it('queued twice while it runs, runs once', async () => {
    await t.dataSource.query(
      `INSERT INTO scans (domain_id, trigger, status, lease_until, worker_id)
       SELECT id, 'cron', 'running', now() + interval '5 minutes', 'another-worker' FROM domains
        WHERE domain = 'running.test'`,
    );
    for (let i = 0; i < 2; i++) expect((await t.post('/scans', { domain: 'running.test' }, writer)).status).toBe(202);
    expect((await worker(t).tick()).outcomes).toEqual([]);
    await t.dataSource.query(
      `UPDATE scans SET status = 'success', finished_at = now(), lease_until = NULL, worker_id = NULL
        WHERE worker_id = 'another-worker'`,
    );
    expect((await tickUntilIdle(t)).map((o) => o.status)).toEqual(['success']);
    expect((await scans()).slice(0, 3)).toEqual([
      ['api', 'success'],
      ['cron', 'success'],
      ['api', 'success'],
    ]);
  });
});
