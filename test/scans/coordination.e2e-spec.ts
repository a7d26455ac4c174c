import { hostname } from 'node:os';
import { DomainEntity } from '../../src/domains/entities/domain.entity.js';
import { ScanEntity } from '../../src/discovery/entities/scan.entity.js';
import { LoopbackCrtsh } from '../fixtures/crtsh-server.js';
import { hoursAgo, seedDomain, seedScan } from '../fixtures/data.js';
import { type TestApp, bearer, startTestApp } from '../fixtures/test-app.js';
import { NEVER, tickUntilIdle, worker } from '../fixtures/worker.js';

describe('workers sharing one database', () => {
  let crt: LoopbackCrtsh;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    const env = {
      WORKER: 'on' as const,
      WORKER_CRON: NEVER,
      CRTSH_URL: crt.url,
      SCAN_CONCURRENCY: 4,
      SCAN_LEASE_SECONDS: 30,
    };
    a = await startTestApp(env);
    b = await startTestApp(env, { shareDatabaseOf: a });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    await crt.close();
  });

  it('scans each of 50 queued domains exactly once between two workers', async () => {
    const write = bearer(await a.token(['read', 'write']));
    const later = new Date(Date.now() + 86_400_000);
    for (let i = 0; i < 50; i++) {
      await seedDomain(a, { domain: `d${i}.test`, nextScanAt: later });
      crt.names.set(`d${i}.test`, [`www.d${i}.test`, `api.d${i}.test`]);
    }
    for (let i = 0; i < 50; i++)
      expect((await (i % 2 ? a : b).post('/scans', { domain: `d${i}.test` }, write)).status).toBe(202);

    const done = { a: 0, b: 0 };
    for (let round = 0; round < 40; round++) {
      const [ra, rb] = await Promise.all([worker(a).tick(), worker(b).tick()]);
      done.a += ra.outcomes.length;
      done.b += rb.outcomes.length;
      if (ra.outcomes.length === 0 && rb.outcomes.length === 0) break;
    }

    expect(done.a + done.b).toBe(50);
    expect(done.a).toBeGreaterThan(0);
    expect(done.b).toBeGreaterThan(0);
    const perDomain: { domain: string; scans: number; successes: number; hosts: number }[] = await a.dataSource
      .getRepository(DomainEntity)
      .createQueryBuilder('d')
      .select('d.domain', 'domain')
      .addSelect('(SELECT count(*) FROM scans s WHERE s.domain_id = d.id)::int', 'scans')
      .addSelect(
        `(SELECT count(*) FROM scans s WHERE s.domain_id = d.id AND s.status = 'success' AND s.trigger = 'api')::int`,
        'successes',
      )
      .addSelect('d.total_subdomains', 'hosts')
      .getRawMany();
    expect(perDomain).toHaveLength(50);
    for (const d of perDomain) expect(d).toEqual({ domain: d.domain, scans: 1, successes: 1, hosts: 2 });
  });

  it('takes up a scan whose worker died once its lease ran out, and finishes it', async () => {
    const domain = await seedDomain(a, { domain: 'orphan.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    crt.names.set('orphan.test', ['x.orphan.test']);
    const scans = a.dataSource.getRepository(ScanEntity);
    const orphan = await seedScan(a, domain, {
      trigger: 'api',
      status: 'running',
      leaseUntil: new Date(Date.now() - 1000),
      workerId: 'elsewhere:1:dead00',
    });
    const outcomes = await tickUntilIdle(b);
    expect(outcomes).toEqual([expect.objectContaining({ status: 'success', new: 1 })]);
    expect(await scans.findOneByOrFail({ id: orphan.id })).toMatchObject({
      status: 'success',
      attempts: 1,
      leaseUntil: null,
    });
  });

  it('leaves a scan whose lease is current alone', async () => {
    const domain = await seedDomain(a, { domain: 'busy.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    const scans = a.dataSource.getRepository(ScanEntity);
    const held = await seedScan(a, domain, {
      trigger: 'cron',
      status: 'running',
      leaseUntil: new Date(Date.now() + 60_000),
      workerId: 'elsewhere:2:alive0',
    });
    expect(await tickUntilIdle(a)).toEqual([]);
    expect(await scans.findOneByOrFail({ id: held.id })).toMatchObject({ status: 'running', attempts: 0 });
    await scans.update({ id: held.id }, { status: 'error', finishedAt: new Date(), leaseUntil: null });
  });

  it('ends in error a scan whose workers kept dying, instead of running it forever', async () => {
    const domain = await seedDomain(a, { domain: 'cursed.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    const scans = a.dataSource.getRepository(ScanEntity);
    const cursed = await seedScan(a, domain, {
      trigger: 'cron',
      status: 'running',
      startedAt: hoursAgo(1),
      leaseUntil: new Date(Date.now() - 1000),
      attempts: 3,
      workerId: 'elsewhere:3:x',
    });
    await tickUntilIdle(a);
    expect(await scans.findOneByOrFail({ id: cursed.id })).toMatchObject({
      status: 'error',
      error: 'interrupted: the worker running this scan stopped 3 times',
    });
    expect((await a.dataSource.getRepository(DomainEntity).findOneByOrFail({ id: domain.id })).lastScanStatus).toBe(
      'error',
    );
  });

  it('frees at start the scans of a dead process on the same host, without waiting for the lease', async () => {
    const domain = await seedDomain(a, { domain: 'restart.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    crt.names.set('restart.test', ['y.restart.test']);
    const scans = a.dataSource.getRepository(ScanEntity);
    // pid 2^22 + 1 is above Linux's pid_max: no process has it.
    const stale = await seedScan(a, domain, {
      trigger: 'api',
      status: 'running',
      leaseUntil: new Date(Date.now() + 3_600_000),
      workerId: `${hostname()}:4194305:abcdef`,
    });
    const c = await startTestApp({ ...a.env }, { shareDatabaseOf: a });
    try {
      expect(await tickUntilIdle(c)).toEqual([expect.objectContaining({ status: 'success', new: 1 })]);
      expect(await scans.findOneByOrFail({ id: stale.id })).toMatchObject({ status: 'success', attempts: 1 });
    } finally {
      await c.close();
    }
  });
});
