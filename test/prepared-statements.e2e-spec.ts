import { DataSource } from 'typeorm';
import { Db } from '../src/database/db.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

const onServer = Boolean(process.env.TEST_DATABASE_URL);

/** The names of the statements prepared on the app's one pooled connection (DATABASE_POOL_SIZE=1). */
async function preparedOn(t: TestApp): Promise<string[]> {
  const { rows } = await Db.of(t.app.get(DataSource)).primary.query<{ name: string }>(
    `SELECT name FROM pg_prepared_statements WHERE name LIKE 'sm\\_%' ORDER BY name`,
  );
  return rows.map((r) => r.name);
}

/** What a client sees of the endpoints whose statements are prepared. */
async function answers(t: TestApp, token: string) {
  const paths = [
    '/me',
    '/domains/example.com',
    '/domains/example.com/subdomains',
    '/domains/example.com/subdomains?filter=inactive',
    '/domains/example.com/subdomains/new?hours=48',
    '/domains/missing.example/subdomains',
    '/domains/example.com/subdomains?search=h1',
    '/subdomains/search?q=h1',
    '/subdomains/search?q=h2&offset=1&limit=5',
    '/subdomains/new?hours=48',
    '/platforms/self/subdomains/new?hours=48',
    '/scans?domain=example.com',
  ];
  const seen = [];
  for (const path of paths) {
    const res = await t.get(path, bearer(token));
    // A window's start is the moment of the request.
    if (res.body.meta?.since) res.body.meta.since = 'now - 48 h';
    seen.push({ path, status: res.status, body: res.status === 200 ? res.body : res.body.error });
  }
  return seen;
}

/**
 * On a PostgreSQL server the statements every request runs (the key lookup, a domain by name, a scan by id) are
 * prepared once per connection; DATABASE_PREPARED_STATEMENTS=off and the embedded database prepare nothing. The
 * answers are the same either way.
 */
describe('prepared statements', () => {
  let on: TestApp;
  let off: TestApp;
  let token: string;

  beforeAll(async () => {
    on = await startTestApp({ DATABASE_POOL_SIZE: 1 });
    off = await startTestApp({ DATABASE_POOL_SIZE: 1, DATABASE_PREPARED_STATEMENTS: 'off' }, { shareDatabaseOf: on });
    token = await on.token(['read']);
    await on.dataSource.query(`INSERT INTO domains (domain, platform_slug) VALUES ('example.com', 'self')`);
    await on.dataSource.query(
      `INSERT INTO hosts (domain_id, host, first_seen_at, is_active)
       SELECT d.id, 'h' || i || '.example.com', now() - i * interval '1 hour', i % 3 <> 0
         FROM domains d, generate_series(1, 40) i WHERE d.domain = 'example.com'`,
    );
    await on.dataSource.query(
      `UPDATE domains SET total_subdomains = 40, active_subdomains = 27 WHERE domain = 'example.com'`,
    );
  });
  afterAll(async () => {
    await off.close();
    await on.close();
  });

  it('prepares the lookups every request runs on a server, and nothing on the embedded database', async () => {
    // Twice: a list's count is kept once computed, and its page is then asked alone.
    await answers(on, token);
    await answers(on, token);
    const prepared = await preparedOn(on);
    if (onServer) {
      // The key lookup, the domain by name, and the domain's detail.
      expect(prepared.length).toBeGreaterThanOrEqual(3);
      expect(prepared.every((name) => /^sm_[0-9a-f]{24}$/.test(name))).toBe(true);
      // Asked again, the same statements serve: nothing new is prepared.
      await answers(on, token);
      expect(await preparedOn(on)).toEqual(prepared);
    } else {
      expect(prepared).toEqual([]);
    }
  });

  // A substring search's best plan differs with its term (the trigrams for a rare one, a walk newest first for a
  // common one), so a prepared search is planned for its parameters on every run: PostgreSQL weighs one generic
  // plan for them all after five runs, and custom_plan_guard() makes that plan cost more than any other.
  it('plans a prepared search for its term on every run, never once for every term', async () => {
    for (const q of ['h1', 'h2', 'h3', 'zz', 'example', 'h1', 'h4', 'h5', 'h6']) {
      expect((await on.get(`/subdomains/search?q=${q}`, bearer(token))).status).toBe(200);
      expect((await on.get(`/domains/example.com/subdomains?search=${q}`, bearer(token))).status).toBe(200);
    }
    // The app's one pooled connection (DATABASE_POOL_SIZE=1).
    const pool = Db.of(on.app.get(DataSource)).primary;
    const { rows } = await pool.query<{ name: string; types: string[]; generic: string; custom: string }>(
      `SELECT name, parameter_types::text[] AS types, generic_plans AS generic, custom_plans AS custom
         FROM pg_prepared_statements WHERE statement LIKE '%custom_plan_guard()%' ORDER BY name`,
    );
    if (!onServer) {
      expect(rows).toEqual([]);
      return;
    }
    // The search, and a domain's list (with its count, and without it once the count is kept): each planned for
    // its parameters on every run, after more than the five runs that make PostgreSQL weigh the generic plan.
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...rows.map((row) => Number(row.custom)))).toBeGreaterThan(5);
    for (const row of rows) expect([row.name, row.generic]).toEqual([row.name, '0']);
    // The generic plan each would weigh costs a million times the plan made for its parameters.
    const valueOf = (type: string) => ({ text: `'%h1%'`, boolean: 'true', integer: '1' })[type] ?? '10';
    const client = await pool.connect();
    const costOf = async (mode: string, name: string, types: string[]) => {
      await client.query(`SET plan_cache_mode = ${mode}`);
      const { rows: explained } = await client.query<{ 'QUERY PLAN': { Plan: { 'Total Cost': number } }[] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE ${name}(${types.map(valueOf).join(', ')})`,
      );
      return explained[0]['QUERY PLAN'][0].Plan['Total Cost'];
    };
    try {
      for (const { name, types } of rows) {
        const generic = await costOf('force_generic_plan', name, types);
        const custom = await costOf('force_custom_plan', name, types);
        expect([name, generic / custom > 1e6]).toEqual([name, true]);
      }
    } finally {
      await client.query('RESET plan_cache_mode');
      client.release();
    }
  });

  it('prepares nothing with DATABASE_PREPARED_STATEMENTS=off', async () => {
    await answers(off, token);
    expect(await preparedOn(off)).toEqual([]);
  });

  it('answers the same with prepared statements and without', async () => {
    const prepared = await answers(on, token);
    expect(await answers(off, token)).toEqual(prepared);
    expect(prepared.find((a) => a.path === '/domains/example.com/subdomains')?.body.meta).toEqual({
      limit: 100,
      offset: 0,
      total: 40,
    });
    expect(prepared.find((a) => a.path.includes('inactive'))?.body.meta.total).toBe(13);
    expect(prepared.find((a) => a.path.includes('missing'))).toMatchObject({ status: 404 });
  });
});
