import { DemoDataRepository } from '../src/demo/demo-data.repository.js';
import { DemoDataService } from '../src/demo/demo-data.service.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

type Plan = {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Index Name'?: string;
  'Index Cond'?: string;
  Output?: string[];
  Plans?: Plan[];
};

/** Every node of a plan, the plan's own first. */
const nodes = (plan: Plan): Plan[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** The types of the plan's nodes that scan hosts (Seq Scan, Index Only Scan, Bitmap Heap Scan, …). */
const hostReads = (plan: Plan): string[] =>
  nodes(plan)
    .filter((n) => n['Relation Name'] === 'hosts')
    .map((n) => n['Node Type']);

/**
 * At a realistic size, no query an API request runs reads the hosts table from end to end: every one is
 * served by an index (the query plans are read with EXPLAIN for each endpoint's real statements).
 */
describe('query plans at size', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const captured: { sql: string; params: unknown[] }[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await t.token());
    await new DemoDataService(new DemoDataRepository(t.dataSource), t.env).seed(
      { domains: 300, hosts: 100_000, days: 180, seed: 'plans' },
      () => undefined,
    );
    const logger = t.dataSource.logger as unknown as { logQuery: (q: string, p?: unknown[]) => void };
    logger.logQuery = (sql, params) => captured.push({ sql, params: params ?? [] });
  }, 180_000);
  afterAll(() => t.close());

  /** The statements a request for `path` runs. */
  async function statementsOf(path: string): Promise<{ sql: string; params: unknown[] }[]> {
    captured.length = 0;
    const res = await t.get(path, auth);
    expect(res.status).toBe(200);
    // The request's statements; not the data version's own look at data_versions, which runs every few seconds
    // whatever is asked and may land inside a request.
    const statements = captured.filter(
      (c) => /^\s*(\/\*[^*]*\*\/\s*)?(SELECT|WITH)\b/i.test(c.sql) && !/\bFROM data_versions\b/.test(c.sql),
    );
    expect(statements.length).toBeGreaterThan(0);
    return statements;
  }

  async function plansOf(path: string): Promise<{ sql: string; plan: Plan }[]> {
    const statements = await statementsOf(path);
    const plans = [];
    for (const { sql, params } of statements) {
      const [{ 'QUERY PLAN': found }] = await t.dataSource.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      plans.push({ sql: sql.replace(/\s+/g, ' ').slice(0, 160), plan: (found as { Plan: Plan }[])[0].Plan });
    }
    return plans;
  }

  const domainOf = async () =>
    (await t.get('/domains?sort=total_subdomains&limit=1', auth)).body.data[0].domain as string;
  /** A selective search term: the first label of a real host of `domain` (a common term may rightly be scanned). */
  const labelOf = async (domain: string) =>
    ((await t.get(`/domains/${domain}/subdomains?limit=1`, auth)).body.data[0].host as string).split('.')[0];

  it.each([
    '/domains?limit=50&offset=100',
    '/domains?search=blue&sort=last_scanned_at',
    '/domains/{domain}',
    '/domains/{domain}/subdomains?limit=100',
    '/domains/{domain}/subdomains?filter=inactive',
    '/domains/{domain}/subdomains?filter=active',
    '/domains/{domain}/subdomains?search=api',
    '/domains/{domain}/subdomains/new?hours=48',
    '/subdomains/new',
    '/subdomains/new?hours=4380&limit=2000',
    '/subdomains/search?q={label}',
    '/platforms',
    '/platforms/hackerone',
    '/platforms/hackerone/domains?limit=20',
    '/platforms/hackerone/subdomains?limit=1000',
    '/platforms/bugcrowd/subdomains?limit=10000&active=false&format=txt',
    '/platforms/hackerone/subdomains/new',
    '/scans?limit=50',
    '/scans/status',
    '/stats',
    '/stats/top-domains',
    '/stats/timeseries?bucket=day&hours=4380',
    '/me',
  ])('GET %s reads hosts only through indexes', async (template) => {
    const domain = await domainOf();
    const path = template.replace('{domain}', domain).replace('{label}', await labelOf(domain));
    for (const { sql, plan } of await plansOf(path)) {
      expect([path, sql, hostReads(plan).filter((type) => type === 'Seq Scan')]).toEqual([path, sql, []]);
    }
  });

  // A server connection compiles no statement (JIT off): on hosts with what is known of them, a feed's estimate
  // passes jit_above_cost, and compiling the expressions that render its rows took 9 ms of a 42 ms statement at
  // 1M hosts. Asked to compile whatever it plans (jit_above_cost = 0), the app's connection still compiles nothing;
  // the embedded database has no JIT at all.
  it.each(['/platforms/hackerone/subdomains/new', '/subdomains/search?q=api', '/domains?limit=50'])(
    'GET %s compiles nothing',
    async (path) => {
      const compiled = [];
      for (const { sql, params } of await statementsOf(path)) {
        const [{ 'QUERY PLAN': found }] = await t.dataSource.transaction(async (manager) => {
          await manager.query('SET LOCAL jit_above_cost = 0');
          return manager.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
        });
        if ((found as { JIT?: unknown }[])[0].JIT) compiled.push(sql.replace(/\s+/g, ' ').slice(0, 160));
      }
      expect([path, compiled]).toEqual([path, []]);
    },
  );

  // A search reads each host it shows once: a common term walks hosts_new_feed_idx, which carries every column a row
  // shows (is_active too); a rare one reads its matches' rows through the trigrams. Reading the page's hosts again by
  // id (an Index Scan of hosts_pkey) cost a quarter of the statement.
  it.each([
    '/subdomains/search?q=api',
    '/subdomains/search?q=api&offset=300&limit=100',
    '/subdomains/search?q={label}',
  ])('GET %s reads no host twice', async (template) => {
    const path = template.replace('{label}', await labelOf(await domainOf()));
    const reads = (await plansOf(path)).flatMap(({ plan }) => hostReads(plan));
    expect([path, reads.filter((type) => type === 'Index Scan' || type === 'Seq Scan')]).toEqual([path, []]);
    expect(reads.length).toBeGreaterThan(0);
  });

  // A list page past an offset chooses its rows first and renders (timestamps as text) and joins only those: 100
  // scans past 2,000 at 1M hosts took 7.1 ms rendering and joining all 2,100, and 1.4 ms this way.
  it.each([
    ['/scans?limit=20&offset=100', 'joins each scan to its domain'],
    ['/domains?limit=20&offset=100', 'joins nothing'],
    ['/domains?sort=last_scanned_at&offset=150', 'joins nothing'],
  ])('GET %s renders only the rows of its page, and %s', async (path, joins) => {
    const page = (await statementsOf(path)).find(({ sql }) => /\bLIMIT\b/.test(sql))!;
    const [{ 'QUERY PLAN': found }] = await t.dataSource.query(
      `EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) ${page.sql}`,
      page.params,
    );
    const all = nodes((found as { Plan: Plan }[])[0].Plan);
    const rows = (n: Plan) => (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1);
    const limit = Number(new URL(path, 'http://x').searchParams.get('limit') ?? 100);
    const rendering = all.filter((n) => n.Output?.some((o) => o.includes('to_char(')));
    expect(rendering.length).toBeGreaterThan(0);
    expect([path, Math.max(...rendering.map(rows))]).toEqual([path, limit]);
    // The domains a page of scans shows are read for its rows alone.
    const domainReads = path.startsWith('/scans') ? all.filter((n) => n['Relation Name'] === 'domains') : [];
    expect([path, domainReads.map(rows)]).toEqual([path, joins === 'joins nothing' ? [] : [limit]]);
  });

  // A domain's scans are one statement, the domain's id found by domains_domain_key inside it, and no scan read
  // from end to end. Looking the domain up first was a round trip more (16 % more CPU a request on this path at 1M
  // hosts, docs/benchmarks-log.md).
  it("GET /scans?domain= finds the domain and its scans by index, in the page's own statement", async () => {
    const path = `/scans?domain=${await domainOf()}`;
    // Besides the key's own look-up: the statements that read domains or scans.
    const plans = (await plansOf(path)).filter(({ plan }) =>
      nodes(plan).some((n) => n['Relation Name'] === 'domains' || n['Relation Name'] === 'scans'),
    );
    const reads = plans.flatMap(({ plan }) =>
      nodes(plan)
        .filter((n) => n['Relation Name'])
        .map((n) => `${n['Node Type']} ${n['Relation Name']} ${n['Index Name'] ?? ''}`.trim()),
    );
    expect(plans).toHaveLength(1);
    expect(reads).toContain('Index Scan domains domains_domain_key');
    expect(reads.filter((r) => r.startsWith('Seq Scan'))).toEqual([]);
    expect((await t.get(path, auth)).body.data.length).toBeGreaterThan(0);
  });

  // A walk of a platform's hosts starts each page at its cursor's domain in domains_platform_idx. Bounded by the
  // (domain, host) pair alone, every page read the platform's domains from the first and filtered them out: a
  // page at the 3,000th of 18,667 domains (1M hosts over 50,000 roots) took 88 ms, against 2.7 ms from the
  // cursor's domain on.
  it("walks a platform's hosts from the cursor's domain on, not from its first", async () => {
    const first = await t.get('/platforms/hackerone/subdomains?limit=1000', auth);
    const cursor = first.body.meta.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const walks = (await plansOf(`/platforms/hackerone/subdomains?limit=1000&cursor=${cursor}`)).filter(
      (p) => hostReads(p.plan).length > 0,
    );
    expect(walks).toHaveLength(1);
    const domainReads = nodes(walks[0].plan).filter((n) => n['Relation Name'] === 'domains');
    expect(domainReads.map((n) => [n['Index Name'], /\bdomain >= /.test(n['Index Cond'] ?? '')])).toEqual([
      ['domains_platform_idx', true],
    ]);
  });

  // A platform's feed walks every new host newest first and checks what is known of a host (a wildcard echo, out
  // of scope) only once its domain is found to be the platform's: checked on every host walked, yeswehack's page
  // of 2,000 at 1M hosts over 50,000 roots checked 16,162 hosts (25 ms against 18).
  it("checks a platform feed's hosts for hiding only once they are the platform's", async () => {
    const statements = await statementsOf('/platforms/hackerone/subdomains/new?hours=4380&limit=200');
    const feed = statements.find((s) => /platform_slug/.test(s.sql) && /\bhosts h\b/.test(s.sql));
    const [{ 'QUERY PLAN': found }] = await t.dataSource.query(
      `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${feed!.sql}`,
      feed!.params,
    );
    const plan = nodes((found as { Plan: Plan }[])[0].Plan);
    const walked = plan.find((n) => n['Relation Name'] === 'hosts')!['Actual Rows']!;
    const checked = plan.filter((n) => n['Relation Name'] === 'host_intel' && n.Alias === 'k');
    // The walk passes other platforms' hosts; the page holds 201 (a page and one more).
    expect(walked).toBeGreaterThan(300);
    expect(checked.map((n) => n['Actual Loops']! <= 201)).toEqual([true]);
  });

  // Only a host guesses alone found can be a wildcard echo (guessedOnly, kept so by the store): a domain's feed,
  // which on a root without rules hides echoes alone, looks up only those of the hosts it walks.
  it("checks a domain's new hosts for wildcard echoes only among those guesses alone found", async () => {
    const domain = await domainOf();
    const feed = (await statementsOf(`/domains/${domain}/subdomains/new?hours=4380&limit=200`)).find((s) =>
      /\bhost_intel k\b/.test(s.sql),
    );
    const [{ 'QUERY PLAN': found }] = await t.dataSource.query(
      `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${feed!.sql}`,
      feed!.params,
    );
    const plan = nodes((found as { Plan: Plan }[])[0].Plan);
    const walked = plan.find((n) => n['Relation Name'] === 'hosts')!['Actual Rows']!;
    const probes = plan
      .filter((n) => n['Relation Name'] === 'host_intel' && n.Alias === 'k')
      .reduce((sum, n) => sum + n['Actual Loops']!, 0);
    const [{ guessed }] = await t.dataSource.query<{ guessed: number }[]>(
      `SELECT count(*) FILTER (WHERE (sources | 20) = 20)::int AS guessed
         FROM (SELECT h.sources FROM hosts h JOIN domains d ON d.id = h.domain_id
                WHERE d.domain = $1 ORDER BY h.first_seen_at DESC, h.id DESC LIMIT $2) p`,
      [domain, walked],
    );
    expect(walked).toBeGreaterThanOrEqual(200); // nothing is hidden yet: the page, and one more where asked
    expect(guessed).toBeGreaterThan(0);
    expect(guessed).toBeLessThan(100);
    expect(probes).toBe(guessed);
  });

  // A root without exclusion rules has no host out of scope (ruledRoot): the walk looks a host up in host_intel only
  // where its root has rules. A probe of every host was most of the walk's statement (hackerone's 1,001 rows at 1M
  // hosts: 2.6 ms against 1.5).
  it("checks a platform walk's hosts for their scope only on roots with exclusion rules", async () => {
    const probes = async () => {
      const walk = (await statementsOf('/platforms/hackerone/subdomains?limit=1000')).find((s) =>
        /\bscope_rules\b/.test(s.sql),
      );
      const [{ 'QUERY PLAN': found }] = await t.dataSource.query(
        `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${walk!.sql}`,
        walk!.params,
      );
      const checks = nodes((found as { Plan: Plan }[])[0].Plan).filter(
        (n) => n['Relation Name'] === 'host_intel' && n.Alias === 'k',
      );
      expect(checks.length).toBeGreaterThan(0);
      return checks.reduce((sum, n) => sum + n['Actual Loops']!, 0);
    };
    expect(await probes()).toBe(0);
    const [first] = await t.dataSource.query<{ id: number; domain: string }[]>(
      `SELECT id, domain FROM domains WHERE platform_slug = 'hackerone' ORDER BY domain LIMIT 1`,
    );
    await t.dataSource.query(
      `INSERT INTO scope_rules (domain_id, kind, pattern, regex) VALUES ($1, 'host', 'none.' || $2, '^none$')`,
      [first.id, first.domain],
    );
    try {
      // The first root's hosts the walk shows (active ones, by default), each checked once, and no other root's.
      const [{ n }] = await t.dataSource.query<{ n: number }[]>(
        `SELECT least(count(*), 1001)::int AS n FROM hosts WHERE domain_id = $1 AND is_active`,
        [first.id],
      );
      expect(n).toBeGreaterThan(0);
      expect(await probes()).toBe(n);
    } finally {
      await t.dataSource.query(`DELETE FROM scope_rules WHERE domain_id = $1`, [first.id]);
    }
  });

  // Counts of new hosts take whole hours and days from the rollups and only the window's first, partial hour from
  // hosts, per domain or per platform; the new-host feeds walk hosts newest first. Both read hosts_new_feed_idx alone,
  // which carries domain_id and the name, never the rows (at 10M hosts those rows lie on as many pages at random:
  // reading them took 4.2 s of top domains' 4.4 s).
  it.each([
    '/stats',
    '/stats/top-domains?hours=168',
    '/stats/timeseries?bucket=hour&hours=48',
    '/platforms',
    '/platforms/hackerone',
    '/subdomains/new?limit=500',
    '/subdomains/new?hours=4380&limit=2000',
    '/platforms/hackerone/subdomains/new',
  ])('GET %s reads hosts from an index alone', async (path) => {
    for (const { sql, plan } of await plansOf(path)) {
      expect([path, sql, hostReads(plan).filter((type) => type !== 'Index Only Scan')]).toEqual([path, sql, []]);
    }
  });

  // A common term has matches all over hosts; inside one small domain the index that holds both the domain and
  // the trigrams finds that domain's matches alone. Trigrams alone, intersected with the domain's hosts, read
  // every match of the term (35 ms at 10M hosts, however small the domain).
  it('searches a small domain for a common term without reading every host the term matches', async () => {
    const [{ label }] = await t.dataSource.query(
      `SELECT split_part(host, '.', 1) AS label FROM hosts GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
    );
    const [{ domain }] = await t.dataSource.query(
      `SELECT d.domain FROM domains d WHERE EXISTS (SELECT 1 FROM hosts h WHERE h.domain_id = d.id AND h.host LIKE $1)
        ORDER BY d.total_subdomains, d.domain LIMIT 1`,
      [`${label}.%`],
    );
    const path = `/domains/${domain}/subdomains?search=${label}`;
    for (const { sql, plan } of await plansOf(path)) {
      const all = nodes(plan);
      expect([sql, all.filter((n) => n['Node Type'] === 'BitmapAnd').length]).toEqual([sql, 0]);
      // hosts only through indexes that lead with the domain
      const indexes = all.flatMap((n) => (n['Index Name'] ? [n['Index Name']] : []));
      const global = indexes.filter((name) => name.startsWith('hosts_') && !name.startsWith('hosts_domain_'));
      expect([sql, global]).toEqual([sql, []]);
    }
  });

  // A domain's hosts are asked by its id, looked up first, so the planner knows the domain's size. Looked up
  // inside the statement, the domain was planned at the average size, and the largest one's hosts were all read
  // through a bitmap and sorted (30 ms at 1M hosts for a page at offset 400, against 1.6 ms walking its feed index).
  it.each(['', '&filter=inactive', '&filter=active'])(
    'plans the largest domain at its real size (%s)',
    async (filter) => {
      const [{ domain, total, active }] = await t.dataSource.query(
        `SELECT domain, total_subdomains AS total, active_subdomains AS active
         FROM domains ORDER BY total_subdomains DESC LIMIT 1`,
      );
      const [{ average }] = await t.dataSource.query(`SELECT avg(total_subdomains)::int AS average FROM domains`);
      expect(total).toBeGreaterThan(4 * average);
      const plans = await plansOf(`/domains/${domain}/subdomains?limit=100&offset=400${filter}`);
      // The key's lookup, the domain's (kept per data version: the first of these cases asks it), then the page; its
      // count comes from the domain's counters.
      const kinds = plans.map((p) => p.sql.match(/^SELECT string_agg|count\(\*\)|d.active_subdomains AS active/)?.[0]);
      expect(kinds.filter((k) => k !== 'd.active_subdomains AS active')).toEqual([undefined, 'SELECT string_agg']);
      const page = plans.at(-1)!;
      const scans = nodes(page.plan).filter((n) => n['Relation Name'] === 'hosts') as (Plan & {
        'Plan Rows': number;
      })[];
      expect(scans).toHaveLength(1);
      const expected = filter === '&filter=inactive' ? total - active : filter === '&filter=active' ? active : total;
      expect([page.sql, scans[0]['Plan Rows'] > expected / 2]).toEqual([page.sql, true]);
    },
  );

  // Last: it gives every host what the service would know of it. Host rows then read each host's host_intel row
  // once, by its key, for the rows returned; the feeds' check that a host is no wildcard echo reads the small
  // index of wildcard hosts, row by row as the feed walks, never host_intel whole.
  it.each([
    '/subdomains/new?limit=500',
    '/subdomains/new?hours=4380&limit=2000',
    '/platforms/hackerone/subdomains/new',
    '/domains/{domain}/subdomains/new?hours=4380',
    '/domains/{domain}/subdomains?limit=100',
    '/subdomains/search?q=api',
  ])('GET %s reads host_intel by key only, with every host known', async (template) => {
    const [{ known }] = await t.dataSource.query(`SELECT count(*)::int AS known FROM host_intel`);
    if (known === 0) {
      await t.dataSource.query(
        `INSERT INTO host_intel (host_id, dns_status, a, resolved_at, wildcard)
         SELECT id, 'resolved', ARRAY['192.0.2.' || id % 250], now(), CASE WHEN id % 200 = 0 THEN true END FROM hosts`,
      );
      await t.dataSource.query(`ANALYZE host_intel`);
    }
    const path = template.replace('{domain}', await domainOf());
    for (const { sql, plan } of await plansOf(path)) {
      const reads = nodes(plan)
        .filter((n) => n['Relation Name'] === 'host_intel')
        .map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`.trim());
      const byKey = [
        'Index Scan host_intel_pkey',
        'Index Only Scan host_intel_hidden_idx',
        'Index Scan host_intel_hidden_idx',
      ];
      expect([path, sql, reads.filter((r) => !byKey.includes(r))]).toEqual([path, sql, []]);
      // Never joined whole: no Hash or Materialize of host_intel's rows. The feeds check each host as they walk
      // (an anti-join read a domain's window to the end and sorted it); lists and search may hash the few hidden
      // hosts, read from their small index.
      const feed = path.includes('/new');
      const joined = nodes(plan).filter(
        (n) =>
          ['Hash', 'Materialize'].includes(n['Node Type']) &&
          nodes(n).some(
            (x) => x['Relation Name'] === 'host_intel' && (feed || x['Index Name'] !== 'host_intel_hidden_idx'),
          ),
      );
      expect([path, sql, joined.length]).toEqual([path, sql, 0]);
    }
  });
});
