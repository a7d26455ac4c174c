import { precertLeaf } from './fixtures/ct-certs.js';
import { LoopbackCtLog } from './fixtures/ct-log.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { ctWorker } from './fixtures/worker.js';

const ROOTS = 220;
const ENTRIES = 3000;
const NAMES_PER_ENTRY = 3;

/**
 * Reads while the CT follower writes, on the database the suite runs on (on the embedded one, a single connection
 * the worker shares with every request): every answer is the data or a 503 with Retry-After, never a 500, and the
 * follower still records every host. Its entries spread over 220 roots, the case that held the connection longest.
 * The wait for a connection is cut to 100 ms so that contention shows within the test.
 */
describe('reads while the CT follower writes', () => {
  let log: LoopbackCtLog;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    log = await new LoopbackCtLog().start();
    t = await startTestApp({ ...ctWorker(log), CT_CONCURRENCY: 2, DATABASE_CONNECT_TIMEOUT_MS: 100 });
    auth = bearer(await t.token(['read']));
    await t.dataSource.query(
      `INSERT INTO domains (domain, platform_slug) SELECT 'root' || i || '.test', 'self' FROM generate_series(0, $1::int - 1) i`,
      [ROOTS],
    );
  });

  afterAll(async () => {
    await t?.close();
    await log?.stop();
  });

  it('answers every read with data or 503 and Retry-After, and records every host', async () => {
    // Only now does the log hold entries: the follower has read the roots by the time it sees them.
    await waitFor('the follower to read the log', async () =>
      (await t.get('/ct/logs', auth)).body.data?.length > 0 ? true : undefined,
    );
    for (let i = 0; i < ENTRIES; i++) {
      const root = `root${i % ROOTS}.test`;
      log.append(precertLeaf({ dns: Array.from({ length: NAMES_PER_ENTRY }, (_, k) => `h${k}-${i}.${root}`) }));
    }
    const answers: { path: string; status: number; code?: string; retryAfter: string | null }[] = [];
    let done = false;
    const reader = async (path: string) => {
      while (!done) {
        const res = await t.get(path, auth);
        answers.push({
          path,
          status: res.status,
          code: res.body?.error?.code,
          retryAfter: res.headers.get('retry-after'),
        });
      }
    };
    const readers = ['/ct/logs', '/subdomains/new?limit=100', '/ct/logs', '/domains?limit=10'].map(reader);
    try {
      await waitFor(
        'the follower to record every entry',
        async () => {
          const [ct] = (await t.get('/ct/logs', auth)).body.data ?? [];
          return ct?.position === ENTRIES ? true : undefined;
        },
        { ms: 120_000 },
      );
    } finally {
      done = true;
      await Promise.all(readers);
    }

    const unexpected = answers.filter((a) => a.status !== 200 && a.status !== 503);
    expect(unexpected).toEqual([]);
    for (const busy of answers.filter((a) => a.status === 503)) {
      expect(busy).toEqual({ path: busy.path, status: 503, code: 'service_unavailable', retryAfter: '2' });
    }
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(10);
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM hosts`);
    expect(n).toBe(ENTRIES * NAMES_PER_ENTRY);
    const [ct] = (await t.get('/ct/logs', auth)).body.data;
    expect(ct).toMatchObject({ position: ENTRIES, hosts_total: ENTRIES * NAMES_PER_ENTRY });
  }, 180_000);
});
