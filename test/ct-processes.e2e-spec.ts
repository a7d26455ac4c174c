import pg from 'pg';
import { CtFollower } from '../src/ct/ct-follower.service.js';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { cliOn } from './fixtures/cli.js';
import { x509Leaf } from './fixtures/ct-certs.js';
import { LoopbackCtLog } from './fixtures/ct-log.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { NEVER } from './fixtures/worker.js';

/** A worker process following the logs: how to stop it, and which worker id it follows them as. */
interface Follower {
  holds(workerId: string): boolean;
  /** Ends it as a crash would where it can (SIGKILL of a built server), else as a shutdown does. */
  kill(): Promise<void>;
}

/**
 * Two worker processes on one database follow the same two logs: each log is read by one of them at a time, and
 * when the process holding a log dies, the other takes it over (once its lease runs out) and goes on from the
 * saved position. On the PostgreSQL server these are two built services and the holder is killed with SIGKILL;
 * the embedded database belongs to one process, so there they are two apps in this process sharing it, and the
 * holder's follower is stopped (giving its logs back).
 */
describe('CT logs followed by two worker processes', () => {
  const logs: LoopbackCtLog[] = [];
  const servers: BuiltServer[] = [];
  const apps: TestApp[] = [];
  let db: ProcessDatabase | undefined;
  let client: pg.Client | undefined;
  let query: (sql: string) => Promise<Record<string, unknown>[]>;
  let followers: Follower[];
  const onServer = Boolean(process.env.TEST_DATABASE_URL);

  const settings = () => ({
    WORKER_CRON: NEVER,
    CT_LOGS: logs.map((l) => l.url).join(','),
    CT_START: 'start',
    CT_POLL_SECONDS: '1',
    CT_CONCURRENCY: '2',
  });
  const names = (log: number, from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => x509Leaf({ dns: [`l${log}-${from + i}.example.com`] }));

  beforeAll(async () => {
    for (let l = 0; l < 2; l++) {
      const log = await new LoopbackCtLog().start();
      log.maxPerRequest = 25;
      log.delayMs = 20;
      logs.push(log);
    }
    if (onServer) {
      db = await createProcessDatabase('sm-ct-proc-');
      await cliOn(() => db!.env)('domains', 'add', 'example.com', '--platform', 'self');
      client = new pg.Client({ connectionString: db.env.DATABASE_URL });
      await client.connect();
      query = async (sql) => (await client!.query(sql)).rows;
      followers = [];
      for (let i = 0; i < 2; i++) {
        const server = await startBuiltServer({ ...db.env, ...settings() });
        servers.push(server);
        followers.push({
          holds: (workerId) => workerId.split(':')[1] === String(server.process.pid),
          kill: async () => void (await server.stop('SIGKILL')),
        });
      }
    } else {
      const env = { ...settings(), WORKER: 'on' as const, CT_START: 'start' as const, CT_LOGS: logs.map((l) => l.url) };
      const first = await startTestApp({ ...env, CT_POLL_SECONDS: 1, CT_CONCURRENCY: 2 });
      apps.push(
        first,
        await startTestApp({ ...env, CT_POLL_SECONDS: 1, CT_CONCURRENCY: 2 }, { shareDatabaseOf: first }),
      );
      await seedDomain(first, { domain: 'example.com', platform: 'self' });
      query = (sql) => first.dataSource.query(sql);
      followers = apps.map((app) => ({
        holds: (workerId) => app.app.get(CtFollower).workerId === workerId,
        // The shared database goes with the app that opened it: only the follower stops.
        kill: () => app.app.get(CtFollower).onApplicationShutdown(),
      }));
    }
    // The logs grow only once the root is tracked: a follower rightly passes over the entries it reads before
    // (on the embedded database the followers start before the domain is added, and under load read the whole
    // log first: both positions at 300 and no host).
    for (const [l, log] of logs.entries()) log.append(...names(l, 0, 300));
  }, 180_000);

  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    for (const a of apps.reverse()) await a.close().catch(() => undefined);
    await client?.end();
    await db?.close();
    for (const log of logs) await log.stop();
  });

  const state = async () =>
    (await query(`SELECT url, position::int AS position, worker_id FROM ct_logs ORDER BY url`)) as {
      url: string;
      position: number | null;
      worker_id: string | null;
    }[];
  const reached = (size: number) => {
    let last = '';
    return waitFor(
      `both logs to reach entry ${size}`,
      async () => {
        const now = await state();
        last = JSON.stringify(now);
        return now.length === 2 && now.every((l) => l.position === size) ? now : undefined;
      },
      { ms: 120_000, context: () => last },
    );
  };
  const hosts = async () =>
    (await query(`SELECT host, count(*)::int AS n FROM hosts GROUP BY host`)) as { host: string; n: number }[];

  it('reads each log in one process only, and the other takes a log over when its holder dies', async () => {
    const first = await reached(300);
    // One reader per log: no range of a log was asked for twice.
    for (const log of logs) {
      const ranges = log.requests.filter((r) => r.status === 200).map((r) => `${r.start}-${r.end}`);
      expect(new Set(ranges).size).toBe(ranges.length);
    }
    let recorded = await hosts();
    expect(recorded).toHaveLength(600);
    expect(recorded.every((h) => h.n === 1)).toBe(true);

    // Kill the process that holds the first log; both logs grow meanwhile.
    const holder = followers.findIndex((f) => f.holds(first[0].worker_id!));
    expect(holder).toBeGreaterThanOrEqual(0);
    const survivor = followers[1 - holder];
    await followers[holder].kill();
    for (const [l, log] of logs.entries()) log.append(...names(l, 300, 400));

    const after = await reached(400);
    expect(after.every((l) => survivor.holds(l.worker_id!))).toBe(true);
    recorded = await hosts();
    expect(recorded).toHaveLength(800);
    expect(recorded.every((h) => h.n === 1)).toBe(true);
  }, 180_000);
});
