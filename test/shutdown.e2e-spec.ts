import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { cliOn } from './fixtures/cli.js';
import { openUnread, readRest } from './fixtures/http.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { waitFor, within } from './fixtures/wait.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const HOSTS = 60_000;

/** SIGTERM as an orchestrator sends it during a rolling restart: built processes, real clients. */
describe('graceful shutdown', () => {
  let crt: LoopbackCrtsh;
  let db: ProcessDatabase;
  let dbEnv: Record<string, string>;
  let token: string;
  const servers: BuiltServer[] = [];

  const cli = cliOn(() => ({ ...dbEnv }));

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    db = await createProcessDatabase('sm-stop-');
    dbEnv = db.env;
    await cli('seed-demo', '--domains', '20', '--hosts', String(HOSTS));
    token = await cli('tokens', 'create', '--name', 'shutdown-test', '--scopes', 'read,write');
  }, 180_000); // seeding 60,000 hosts through the CLI on the embedded database is slow on a busy machine
  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await db.close();
    await crt.close();
  });

  const start = async (extra: Record<string, string>) => {
    const server = await startBuiltServer({ ...dbEnv, CRTSH_URL: crt.url, ...extra });
    servers.push(server);
    return server;
  };
  const stopped = (server: BuiltServer, signal: NodeJS.Signals = 'SIGTERM') => {
    servers.splice(servers.indexOf(server), 1);
    const started = Date.now();
    return server.stop(signal).then((code) => ({ code, ms: Date.now() - started }));
  };
  /** Opens a streamed export and hands back the response unread (paused), as a slow client holds it. */
  const openExport = (server: BuiltServer, format = 'txt') =>
    openUnread(`${server.baseUrl}/api/v1/export?format=${format}`, { 'x-api-key': token });
  const readAll = readRest;
  const api = async (server: BuiltServer, path: string, init: RequestInit = {}): Promise<Json> => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      ...init,
      headers: { 'x-api-key': token, 'content-type': 'application/json' },
    });
    return (await res.json()) as Json;
  };

  it('finishes an export in flight, refuses new connections meanwhile, and exits 0', async () => {
    const server = await start({ WORKER: 'off', SHUTDOWN_TIMEOUT: '60' });
    const whole = (await fetch(`${server.baseUrl}/api/v1/export?format=txt`, { headers: { 'x-api-key': token } }))
      .text()
      .then((t) => t);
    const expected = await whole;
    expect(expected.split('\n').filter(Boolean)).toHaveLength(HOSTS);

    const slow = await openExport(server);
    const exit = stopped(server);
    await new Promise((r) => setTimeout(r, 500));
    await expect(fetch(`${server.baseUrl}/health/live`)).rejects.toThrow();

    const received = await readAll(slow);
    expect(received.complete).toBe(true);
    expect(received.text).toBe(expected);
    const { code } = await exit;
    expect(code).toBe(0);
    expect(server.output()).toMatch(/SIGTERM received: draining requests for up to 60 s/);
    expect(server.output()).not.toMatch(/Shutdown timeout reached/);
  });

  it('cuts a stream still open at SHUTDOWN_TIMEOUT and still exits 0, promptly', async () => {
    const server = await start({ WORKER: 'off', SHUTDOWN_TIMEOUT: '1' });
    // Each step is bounded on its own, so a step that never ends says which one it was, with the server's log.
    const step = <T>(what: string, ms: number, promise: Promise<T>) =>
      within(what, promise, { ms, context: server.output });
    // json rows are large enough that the whole export cannot sit in the sockets' buffers.
    const stuck = await step("the export's response headers", 20_000, openExport(server, 'json'));
    const { code, ms } = await step('the process to exit', 20_000, stopped(server));
    expect(code).toBe(0);
    expect(ms).toBeLessThan(15_000);
    expect(server.output()).toMatch(/Shutdown timeout reached: open connections were closed/);
    const received = await step('the cut stream to end', 10_000, readAll(stuck));
    expect(received.complete).toBe(false);
  }, 90_000);

  it('gives a running scan back on SIGTERM; the next process completes it, nothing lost or repeated', async () => {
    await cli('domains', 'add', 'slowscan.test', '--platform', 'self');
    crt.hanging.add('slowscan.test');
    const worker = { WORKER: 'on', WORKER_CRON: '* * * * * *', SCAN_LEASE_SECONDS: '600', SHUTDOWN_TIMEOUT: '5' };
    const first = await start(worker);
    await waitFor('the scan to start', async () =>
      (await api(first, '/scans?domain=slowscan.test&status=running')).data.length > 0 ? true : undefined,
    );
    const { code } = await stopped(first);
    expect(code).toBe(0);
    expect(first.output()).toMatch(/scan [0-9a-f-]+ of slowscan\.test checkpointed at shutdown; any worker resumes it/);

    // Stopping is no failure of the scan: it is still in progress (status running), given back to any worker.
    const between = await start({ WORKER: 'off' });
    const [parked] = (await api(between, '/scans?domain=slowscan.test')).data as Json[];
    expect(parked).toMatchObject({ status: 'running', error: null });
    expect((await stopped(between)).code).toBe(0);

    crt.releaseHanging();
    crt.names.set('slowscan.test', ['a.slowscan.test', 'b.slowscan.test']);
    const second = await start(worker);
    await waitFor('the scan to finish', async () => {
      const [latest] = (await api(second, '/scans?domain=slowscan.test')).data as Json[];
      return latest?.status === 'success' ? latest : undefined;
    });
    expect((await api(second, '/scans?domain=slowscan.test')).meta.total).toBe(1);
    // The same scan went on (it had staged nothing yet, so it logs as started), not a second one.
    expect(second.output()).toMatch(new RegExp(`scan ${parked.id} of slowscan\\.test \\(cron\\) (started|resumed)`));
    const hosts = (await api(second, '/domains/slowscan.test/subdomains')).data as Json[];
    expect(hosts.map((h) => h.host).sort()).toEqual(['a.slowscan.test', 'b.slowscan.test']);
    expect((await stopped(second)).code).toBe(0);
  });
});
