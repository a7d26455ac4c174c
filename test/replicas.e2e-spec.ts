import pg from 'pg';
import { type BuiltServer, startBuiltServer } from './fixtures/built-server.js';
import { cliOn } from './fixtures/cli.js';
import { TempPostgres } from './fixtures/temp-postgres.js';
import { waitFor } from './fixtures/wait.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * DATABASE_REPLICA_URLS on a real hot standby: a primary and a streaming replica of it (pg_basebackup -R), both
 * of the test's own. Pausing the standby's replay shows which server answers what: reads come from the replica,
 * keys and writes from the primary. Replicas need a PostgreSQL server, so this runs in the server pass.
 */
(process.env.TEST_DATABASE_URL ? describe : describe.skip)('read replicas', () => {
  let primary: TempPostgres;
  let standby: TempPostgres;
  let server: BuiltServer | undefined;

  beforeAll(async () => {
    primary = await TempPostgres.create();
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    standby?.destroy();
    primary.destroy();
  });

  const cli = cliOn(() => ({ DATABASE_URL: primary.url }));
  const onStandby = async (sql: string) => {
    const client = new pg.Client({ connectionString: standby.url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as Json[];
    } finally {
      await client.end();
    }
  };

  // Two PostgreSQL servers, a base backup and a built server: about a minute on a loaded machine.
  it('serves reads from the replica, keys and writes from the primary, and falls back when the replica is down', async () => {
    await cli('seed-demo', '--domains', '3', '--hosts', '300', '--seed', '7');
    const token = await cli('tokens', 'create', '--name', 'replicas', '--scopes', 'read,write');
    standby = await primary.standby();
    // The data version moves on each write's NOTIFY alone here (its look at data_versions once a minute): an answer
    // kept under a version then stands until the next write.
    server = await startBuiltServer({
      DATABASE_URL: primary.url,
      DATABASE_REPLICA_URLS: standby.url,
      WORKER: 'off',
      DATA_VERSION_POLL_SECONDS: '60',
    });
    const api = async (path: string, key = token, init: RequestInit = {}) => {
      const res = await fetch(`${server!.baseUrl}/api/v1${path}`, {
        ...init,
        headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers },
      });
      return { status: res.status, text: await res.text(), etag: res.headers.get('etag') };
    };
    const statsDomains = async () => (JSON.parse((await api('/stats')).text) as Json).data.totals.domains as number;
    const domains = async () => {
      const { status, text } = await api('/domains?limit=100');
      expect(status).toBe(200);
      return (JSON.parse(text) as Json).data.map((d: Json) => d.domain as string).sort();
    };
    const seeded = await domains();
    expect(seeded).toHaveLength(3);
    expect(await statsDomains()).toBe(3);

    // The standby stops applying the primary's changes: what it does not show, only the primary knows.
    await onStandby('SELECT pg_wal_replay_pause()');
    await cli('domains', 'add', 'late.test', '--platform', 'self');
    const fresh = await cli('tokens', 'create', '--name', 'fresh');
    expect((await api('/me', fresh)).status).toBe(200); // keys are checked on the primary
    expect(await domains()).toEqual(seeded); // the list comes from the replica
    expect((await api('/domains/late.test')).status).toBe(404);
    const queued = await api('/scans', token, { method: 'POST', body: JSON.stringify({ domain: 'late.test' }) });
    expect(queued.status).toBe(202); // writes go to the primary
    const exported = await api('/export?format=txt');
    expect(exported.status).toBe(200);
    expect(exported.text.trim().split('\n')).toHaveLength(300);
    // After the last write: what the lagging replica answers now is not kept as the answer of the version the
    // writes moved to.
    expect(await statsDomains()).toBe(3);
    const lagging = await api('/domains?limit=100');
    expect((JSON.parse(lagging.text) as Json).meta.total).toBe(3);

    await onStandby('SELECT pg_wal_replay_resume()');
    await waitFor('the standby to replay the new domain', async () =>
      (await onStandby(`SELECT 1 FROM domains WHERE domain = 'late.test'`)).length ? true : undefined,
    );
    // No write since: the version stands, and still the answers are the replica's new ones, the ETag from the
    // lagging replica no longer matches, and the list counts the new domain.
    await waitFor(
      'the ETag of the lagging replica to be passed over',
      async () => {
        const now = await api('/domains?limit=100', token, { headers: { 'if-none-match': lagging.etag! } });
        return now.status === 200 ? now : undefined;
      },
      { ms: 15_000 },
    );
    await waitFor(
      'the kept aggregate to count the new domain',
      async () => ((await statsDomains()) === 4 ? true : undefined),
      { ms: 15_000 },
    );
    // A count is kept under the version reads answer for, which moves once the service has seen the replica
    // replay the writes (looking at it at least every second); the aggregate above is also asked again when the
    // clock's minute turns, so it may count the new domain a moment before.
    await waitFor(
      'the kept count of the list to count the new domain',
      async () => ((JSON.parse((await api('/domains?limit=100')).text) as Json).meta.total === 4 ? true : undefined),
      { ms: 15_000 },
    );
    await waitFor('the replica to catch up', async () => ((await domains()).includes('late.test') ? true : undefined));
    expect((await api('/domains/late.test')).status).toBe(200);

    // The replica goes away: reads fall back to the primary, with a warning in the log.
    standby.stop();
    expect((await domains()).sort()).toEqual([...seeded, 'late.test'].sort());
    expect((await api('/subdomains/search?q=ap')).status).toBe(200);
    const after = await api('/export?format=txt');
    expect(after.status).toBe(200);
    expect(after.text.trim().split('\n')).toHaveLength(300);
    expect(server.output()).toMatch(/a read replica failed, reads fall back to the primary/);
  }, 180_000);
});
