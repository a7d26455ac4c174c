import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from '../fixtures/built-server.js';
import { cliOn } from '../fixtures/cli.js';
import { LoopbackCrtsh } from '../fixtures/crtsh-server.js';
import { waitFor } from '../fixtures/wait.js';
import { fetchStatus } from '../fixtures/http.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The worker as operators run it: built service processes with the worker on, ticking every second,
 * sharing one database, killed and started again.
 */
describe('worker processes', () => {
  let crt: LoopbackCrtsh;
  let db: ProcessDatabase;
  let dbEnv: Record<string, string>;
  const servers: BuiltServer[] = [];

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    db = await createProcessDatabase('sm-proc-');
    dbEnv = db.env;
  });
  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await db.close();
    await crt.close();
  });

  const env = (extra: Record<string, string> = {}) => ({
    ...dbEnv,
    WORKER: 'on',
    WORKER_CRON: '* * * * * *',
    CRTSH_URL: crt.url,
    SCAN_LEASE_SECONDS: '600',
    SCAN_CONCURRENCY: '4',
    ...extra,
  });
  const cli = cliOn(() => ({ ...dbEnv }));
  const start = async (role: Record<string, string> = {}) => {
    const server = await startBuiltServer(env(role));
    servers.push(server);
    return server;
  };
  const api = async (server: BuiltServer, token: string, path: string, init: RequestInit = {}): Promise<Json> => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      ...init,
      headers: { 'x-api-key': token, 'content-type': 'application/json' },
    });
    return (await res.json()) as Json;
  };
  const until = <T>(probe: () => Promise<T | undefined>) => waitFor('the processes', probe);

  it('resumes a scan interrupted by a killed process: none stays running, no host lost or duplicated', async () => {
    await cli('domains', 'add', 'slow.test', '--platform', 'self');
    crt.hanging.add('slow.test');
    const first = await start();
    const token = await cli('tokens', 'create', '--name', 'proc-test');
    await until(async () =>
      (await api(first, token, '/scans?domain=slow.test&status=running')).data.length === 1 ? true : undefined,
    );

    await first.stop('SIGKILL');
    servers.splice(servers.indexOf(first), 1);
    crt.releaseHanging();
    crt.names.set('slow.test', ['a.slow.test', 'b.slow.test', 'c.slow.test']);

    const second = await start();
    const scan = await until(async () => {
      const [latest] = (await api(second, token, '/scans?domain=slow.test')).data as Json[];
      return latest?.status === 'success' ? latest : undefined;
    });
    expect(scan).toMatchObject({ trigger: 'cron', new_count: 3, found_count: 3 });
    const all = await api(second, token, '/scans?domain=slow.test');
    expect(all.meta.total).toBe(1);
    expect((await api(second, token, '/scans?status=running')).data).toEqual([]);
    const hosts = (await api(second, token, '/domains/slow.test/subdomains')).data as Json[];
    expect(hosts.map((h) => h.host).sort()).toEqual(['a.slow.test', 'b.slow.test', 'c.slow.test']);
    await second.stop();
    servers.splice(servers.indexOf(second), 1);
  });

  (process.env.TEST_DATABASE_URL ? it : it.skip)(
    'two API and two worker processes on one PostgreSQL database: both APIs serve, each of 50 domains is scanned once',
    async () => {
      const domains = Array.from({ length: 50 }, (_, i) => `p${i}.test`);
      await cli('domains', 'add', ...domains, '--platform', 'bugcrowd', '--disabled');
      for (const d of domains) crt.names.set(d, [`www.${d}`]);
      const token = await cli('tokens', 'create', '--name', 'writer', '--scopes', 'read,write');
      const [a1, a2] = [await start({ WORKER: 'off' }), await start({ WORKER: 'off' })];
      const [p1, p2] = [await start({ HTTP: 'off' }), await start({ HTTP: 'off' })];
      for (const [i, d] of domains.entries()) {
        const res = await api(i % 2 ? a1 : a2, token, '/scans', {
          method: 'POST',
          body: JSON.stringify({ domain: d }),
        });
        expect(res.data).toEqual({ domain: d, status: 'queued' });
      }
      await until(async () => {
        const done = await api(a1, token, '/scans?platform=bugcrowd&status=success&limit=500');
        return done.meta.total >= 50 ? true : undefined;
      });
      await new Promise((r) => setTimeout(r, 2000)); // a second scan, if any, would start in this time
      const scans = (await api(a2, token, '/scans?platform=bugcrowd&limit=500')).data as Json[];
      expect(scans).toHaveLength(50);
      expect(new Set(scans.map((s) => s.domain)).size).toBe(50);
      expect(scans.every((s) => s.status === 'success' && s.trigger === 'api' && s.new_count === 1)).toBe(true);
      const starts = (s: BuiltServer) =>
        (s.output().match(/"msg":"scan [0-9a-f-]+ of p\d+\.test \(api\) started"/g) ?? []).length;
      expect(starts(p1) + starts(p2)).toBe(50);
      expect(starts(p1)).toBeGreaterThan(0);
      expect(starts(p2)).toBeGreaterThan(0);
      // the API processes scanned nothing, and the workers answered no API request
      expect(starts(a1) + starts(a2)).toBe(0);
      expect(await fetchStatus(`${p1.baseUrl}/api/v1/me`)).toBe(404);
    },
  );
});
