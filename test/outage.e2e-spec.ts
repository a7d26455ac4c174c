import { type BuiltServer, startBuiltServer } from './fixtures/built-server.js';
import { cliOn } from './fixtures/cli.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { TempPostgres } from './fixtures/temp-postgres.js';
import { waitFor } from './fixtures/wait.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const READ_PATHS = ['/me', '/domains', '/subdomains/new', '/subdomains/search?q=api', '/stats', '/scans', '/export'];

/**
 * PostgreSQL goes away under a running service and comes back. The service is a built process on a server
 * of the test's own (TempPostgres), which the test stops and starts; the embedded database cannot go away,
 * so this runs in the PostgreSQL-server pass of the suite.
 */
(process.env.TEST_DATABASE_URL ? describe : describe.skip)('database outage', () => {
  let pg: TempPostgres;
  let crt: LoopbackCrtsh;
  let server: BuiltServer | undefined;

  beforeAll(async () => {
    pg = await TempPostgres.create();
    crt = await new LoopbackCrtsh().start();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await crt.close();
    pg.destroy();
  });

  const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) =>
    waitFor(what, probe, { ms: 40_000, context: () => server?.output().slice(-3000) ?? '' });

  it('answers query_failed fast while PostgreSQL is down, reports not ready, and recovers without a restart', async () => {
    const cli = cliOn(() => ({ DATABASE_URL: pg.url }));
    await cli('domains', 'add', 'outage.test', '--platform', 'self');
    const token = await cli('tokens', 'create', '--name', 'outage', '--scopes', 'read,write');
    crt.hanging.add('outage.test');
    server = await startBuiltServer({
      DATABASE_URL: pg.url,
      WORKER: 'on',
      WORKER_CRON: '* * * * * *',
      // A lease far longer than the test: the interrupted scan must go on because the worker gives it back.
      SCAN_LEASE_SECONDS: '600',
      CRTSH_URL: crt.url,
    });
    const base = server.baseUrl;
    const get = async (path: string) => {
      const started = Date.now();
      const res = await fetch(path.startsWith('/health') ? base + path : `${base}/api/v1${path}`, {
        headers: { 'x-api-key': token },
        signal: AbortSignal.timeout(20_000),
      });
      const body = (await res.json()) as Json;
      return { status: res.status, body, requestId: res.headers.get('x-request-id'), ms: Date.now() - started };
    };
    await until('the scan to start', async () =>
      (await get('/scans?status=running')).body.data.length === 1 ? true : undefined,
    );
    expect((await get('/health/ready')).status).toBe(200);

    pg.stop();

    for (const path of READ_PATHS) {
      const res = await get(path);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 500,
        code: 'query_failed',
      });
      expect(res.body.request_id).toBe(res.requestId);
      expect(res.body.error.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|SELECT|at /);
      expect(res.ms).toBeLessThan(5000);
    }
    const ready = await get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'error', error: { database: { status: 'down' } } });
    expect(ready.ms).toBeLessThan(5000);
    expect((await get('/health/live')).status).toBe(200);

    // The source answers while the database is down: the slice cannot record what it found, and is cut short.
    crt.names.set('outage.test', ['a.outage.test', 'b.outage.test']);
    crt.releaseHanging();
    await until('the slice to give up', () =>
      /scan [0-9a-f-]+ of outage\.test interrupted/.test(server!.output()) ? true : undefined,
    );
    // The ticks that follow find no database and skip, without a crash.
    await until('a skipped tick', () =>
      /tick skipped, the database is not answering/.test(server!.output()) ? true : undefined,
    );
    pg.start();
    const back = Date.now();

    await until('the API to answer again', async () => ((await get('/me')).status === 200 ? true : undefined));
    expect((await get('/health/ready')).status).toBe(200);
    const scan = await until('the scan to finish', async () => {
      const [latest] = (await get('/scans?domain=outage.test')).body.data as Json[];
      return latest?.status === 'success' ? latest : undefined;
    });
    expect(scan).toMatchObject({ new_count: 2, found_count: 2 });
    // Resumed within a minute of the database's return, not when its lease ran out.
    expect(Date.parse(scan.finished_at as string) - back).toBeLessThan(60_000);
    expect(server.output()).toMatch(/1 scan\(s\) interrupted by the database are given back and go on now/);
    expect((await get('/scans?domain=outage.test')).body.meta.total).toBe(1);
    expect((await get('/scans?status=running')).body.data).toEqual([]);
    const hosts = (await get('/domains/outage.test/subdomains')).body.data as Json[];
    expect(hosts.map((h) => h.host).sort()).toEqual(['a.outage.test', 'b.outage.test']);
    expect(server.process.exitCode).toBeNull();
  }, 180_000);
});
