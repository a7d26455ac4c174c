import { PGlite } from '@electric-sql/pglite';
import { Params } from '../../database/sql.js';
import {
  type KnowledgeFilter,
  SCOPE_MODES,
  type ScopeMode,
  WILDCARD_MODES,
  type WildcardMode,
  hasKnowledgeFilter,
  hiddenConditions,
  knowledgeConditions,
  onlyHides,
  outOfScopeConditions,
  wildcardConditions,
} from './knowledge-filter.js';

/**
 * What each host is known as: its row of host_intel (none for host 10, never resolved nor probed), the sources that
 * found it (SOURCE_BITS; 1, the CT logs, unless given) and whether its root has exclusion rules. The conditions run
 * on an embedded PostgreSQL holding only the columns they read, as the migrations define them. As the store keeps
 * them, wildcard echoes are hosts guesses alone found (7: permutations, 9: DNS brute force) and hosts out of scope
 * are of roots with rules; STALE holds two that are not so.
 */
interface Known {
  id: number;
  sources?: number;
  ruled?: boolean;
  dns?: string;
  http?: number;
  cname?: string[];
  dnsTakeover?: object;
  httpTakeover?: object;
  wildcard?: boolean | null;
  out?: boolean | null;
}
const HOSTS: Known[] = [
  { id: 1, dns: 'resolved', http: 200, wildcard: null, out: null, ruled: true },
  { id: 2, dns: 'resolved', http: 404, cname: ['origin.azurewebsites.net'], wildcard: false, out: false, sources: 4 },
  { id: 3, dns: 'nxdomain', cname: ['evilazurewebsites.net'] },
  { id: 4, dns: 'servfail', cname: ['shop.example.org', 'azurewebsites.net'] },
  { id: 5, dns: 'nxdomain', dnsTakeover: { service: 'github-pages' } },
  { id: 6, dns: 'resolved', http: 404, httpTakeover: { service: 'heroku' } },
  { id: 7, dns: 'resolved', wildcard: true, sources: 16 },
  { id: 8, dns: 'resolved', out: true, ruled: true },
  { id: 9, dns: 'resolved', wildcard: true, out: true, sources: 4, ruled: true },
  { id: 10 },
];
/** A flag the CT logs' later find of host 11 would have cleared, and host 12 out of scope in a root without rules. */
const STALE: Known[] = [
  { id: 11, dns: 'resolved', wildcard: true, sources: 17 },
  { id: 12, dns: 'resolved', out: true, ruled: false },
];
const ALL = HOSTS.map((h) => h.id);
const isWildcard = (id: number) => HOSTS.find((h) => h.id === id)?.wildcard === true;
const isOut = (id: number) => HOSTS.find((h) => h.id === id)?.out === true;

let db: PGlite;

beforeAll(async () => {
  db = new PGlite();
  await db.exec(`
    CREATE TABLE hosts (id bigint PRIMARY KEY, sources smallint NOT NULL, ruled boolean NOT NULL);
    CREATE TABLE stale_hosts (LIKE hosts);
    CREATE TABLE host_intel (
      host_id bigint PRIMARY KEY,
      dns_status text, cname text[], dns_takeover jsonb, http_status integer, http_takeover jsonb,
      wildcard boolean, out_of_scope boolean
    );
    CREATE TABLE events (id bigint PRIMARY KEY, host_id bigint REFERENCES hosts (id));
  `);
  for (const h of [...HOSTS, ...STALE]) {
    const stale = STALE.includes(h);
    await db.query(`INSERT INTO ${stale ? 'stale_hosts' : 'hosts'} VALUES ($1, $2, $3)`, [
      h.id,
      h.sources ?? 1,
      h.ruled ?? false,
    ]);
    if (!stale) await db.query('INSERT INTO events VALUES ($1, $2)', [100 + h.id, h.id]);
    if (h.dns === undefined) continue;
    await db.query('INSERT INTO host_intel VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      h.id,
      h.dns,
      h.cname ?? null,
      h.dnsTakeover ? JSON.stringify(h.dnsTakeover) : null,
      h.http ?? null,
      h.httpTakeover ? JSON.stringify(h.httpTakeover) : null,
      h.wildcard ?? null,
      h.out ?? null,
    ]);
  }
});

afterAll(async () => {
  await db.close();
});

/** The hosts (aliased `alias`) of `table` that pass the conditions, in id order. */
async function passing(where: string[], params: unknown[] = [], alias = 'h', table = 'hosts'): Promise<number[]> {
  const sql = `SELECT ${alias}.id::int AS id FROM ${table} ${alias} WHERE ${where.join(' AND ') || 'true'} ORDER BY 1`;
  const { rows } = await db.query<{ id: number }>(sql, params);
  return rows.map((r) => r.id);
}

async function filtered(filter: KnowledgeFilter | undefined): Promise<number[]> {
  const q = new Params();
  return passing(knowledgeConditions(q, filter), q.values);
}

describe('hiddenConditions: wildcard and scope modes', () => {
  const modes = <T>(values: readonly T[]) => [undefined, ...values];
  const cases = modes(WILDCARD_MODES).flatMap((wildcard) =>
    modes(SCOPE_MODES).map((scope) => [wildcard, scope] as const),
  );

  it.each(cases)('wildcard=%s scope=%s keeps exactly the hosts the modes describe', async (wildcard, scope) => {
    const keeps = (id: number) => {
      const echo = isWildcard(id);
      const out = isOut(id);
      const byWildcard = wildcard === 'only' ? echo : wildcard === 'exclude' ? !echo : true;
      const byScope = scope === 'out' ? out : scope === 'in' ? !out : true;
      return byWildcard && byScope;
    };
    expect(await passing(hiddenConditions(wildcard, scope))).toEqual(ALL.filter(keeps));
    // Told whether each host's root has rules, the same hosts.
    expect(await passing(hiddenConditions(wildcard, scope, 'h', 'h.ruled'))).toEqual(ALL.filter(keeps));
  });

  it('looks the flags up only where they can be: on hosts guesses alone found, and where told, of roots with rules', async () => {
    const stale = (...args: Parameters<typeof hiddenConditions>) =>
      passing(hiddenConditions(...args), [], 'h', 'stale_hosts');
    expect(await stale('only', 'all')).toEqual([11]);
    expect(await stale('exclude', 'all')).toEqual([11, 12]);
    expect(await stale('exclude', 'in')).toEqual([]); // either may be hidden: both looked up
    expect(await stale('exclude', 'in', 'h', 'h.ruled')).toEqual([11, 12]);
    expect(await stale('include', 'in')).toEqual([11]);
    expect(await stale('include', 'in', 'h', 'h.ruled')).toEqual([11, 12]);
    expect(await stale(undefined, 'out', 'h', 'h.ruled')).toEqual([12]);
  });

  it('reads what the feeds hide by default: no wildcard host, nothing out of scope', async () => {
    expect(await passing(hiddenConditions('exclude', 'in'))).toEqual([1, 2, 3, 4, 5, 6, 10]);
  });

  it('asks nothing when it hides nothing', () => {
    expect(hiddenConditions(undefined, undefined)).toEqual([]);
    expect(hiddenConditions('include', 'all')).toEqual([]);
  });

  it('applies to hosts under another alias', async () => {
    expect(await passing(hiddenConditions('only', 'all', 'x'), [], 'x')).toEqual([7, 9]);
  });

  it('wildcardConditions is the wildcard mode alone', async () => {
    expect(wildcardConditions('only')).toEqual(hiddenConditions('only', undefined));
    expect(await passing(wildcardConditions('exclude'))).toEqual([1, 2, 3, 4, 5, 6, 8, 10]);
  });
});

describe('outOfScopeConditions: scope of rows that name a host', () => {
  const events = async (scope: ScopeMode | undefined) => {
    const where = outOfScopeConditions(scope, 'e.host_id');
    const { rows } = await db.query<{ id: number }>(
      `SELECT e.id::int AS id FROM events e WHERE ${where.join(' AND ') || 'true'} ORDER BY 1`,
    );
    return rows.map((r) => r.id - 100);
  };

  it.each([
    ['in', [1, 2, 3, 4, 5, 6, 7, 10]],
    ['out', [8, 9]],
    ['all', ALL],
    [undefined, ALL],
  ] as const)('scope=%s keeps the changes of those hosts', async (scope, hosts) => {
    expect(await events(scope)).toEqual(hosts);
  });
});

describe('knowledgeConditions: resolves, status, takeover, cname', () => {
  it('no filter, no condition', () => {
    const q = new Params();
    expect(knowledgeConditions(q, undefined)).toEqual([]);
    expect(knowledgeConditions(q, {})).toEqual([]);
    expect(q.values).toEqual([]);
  });

  it('resolves=true: hosts whose last answer has an address; false: the others, never resolved included', async () => {
    expect(await filtered({ resolves: true })).toEqual([1, 2, 6, 7, 8, 9]);
    expect(await filtered({ resolves: false })).toEqual([3, 4, 5, 10]);
  });

  it('status: hosts whose probe answered it, the status sent as a parameter after those already taken', async () => {
    const q = new Params();
    const earlier = `${q.p('earlier')}::text = 'earlier'`;
    const where = knowledgeConditions(q, { status: 404 });
    expect(q.values).toEqual(['earlier', 404]);
    expect(where.join(' ')).toContain('$2');
    expect(where.join(' ')).not.toContain('404');
    expect(await passing([earlier, ...where], q.values)).toEqual([2, 6]);
    expect(await filtered({ status: 500 })).toEqual([]);
  });

  it('takeover=true: candidates by their DNS or their HTTP answer; false: every other host', async () => {
    expect(await filtered({ takeover: true })).toEqual([5, 6]);
    expect(await filtered({ takeover: false })).toEqual([1, 2, 3, 4, 7, 8, 9, 10]);
  });

  it('cname: a name of the chain that is the suffix or ends with it by whole labels', async () => {
    expect(await filtered({ cname: 'azurewebsites.net' })).toEqual([2, 4]);
    expect(await filtered({ cname: 'origin.azurewebsites.net' })).toEqual([2]);
    expect(await filtered({ cname: 'example.org' })).toEqual([4]);
    expect(await filtered({ cname: 'websites.net' })).toEqual([]);
    expect(await filtered({ cname: 'net' })).toEqual([2, 3, 4]);
  });

  it('cname: the suffix is one parameter, never part of the text', async () => {
    const q = new Params();
    const cname = "x' OR true OR 'x";
    const where = knowledgeConditions(q, { cname });
    expect(q.values).toEqual([cname]);
    expect(where.join(' ')).not.toContain(cname);
    expect(await passing(where, q.values)).toEqual([]);
  });

  it('filters combine, with the wildcard and scope modes', async () => {
    expect(await filtered({ resolves: true, wildcard: 'exclude', scope: 'in' })).toEqual([1, 2, 6]);
    expect(await filtered({ resolves: true, cname: 'azurewebsites.net' })).toEqual([2]);
    expect(await filtered({ resolves: true, wildcard: 'only', scope: 'all' })).toEqual([7, 9]);
    expect(await filtered({ takeover: true, status: 404, scope: 'out' })).toEqual([]);
    expect(await filtered({ status: 404, takeover: false, wildcard: 'include', scope: 'in' })).toEqual([2]);
  });
});

describe('hasKnowledgeFilter and onlyHides', () => {
  it.each<[KnowledgeFilter | undefined, boolean, boolean]>([
    [undefined, false, true],
    [{}, false, true],
    [{ wildcard: 'include', scope: 'in' }, false, true],
    [{ wildcard: 'include', scope: 'all' }, false, true],
    [{ wildcard: 'exclude', scope: 'in' }, true, true],
    [{ wildcard: 'exclude', scope: 'all' }, true, true],
    [{ wildcard: 'only' }, true, false],
    [{ scope: 'out' }, true, false],
    [{ resolves: false }, true, false],
    [{ resolves: true, wildcard: 'include' }, true, false],
    [{ status: 200 }, true, false],
    [{ takeover: false }, true, false],
    [{ cname: 'azurewebsites.net' }, true, false],
  ])('%j: filters %s, only hides %s', (filter, filters, hides) => {
    expect([hasKnowledgeFilter(filter), onlyHides(filter)]).toEqual([filters, hides]);
  });

  it('a filter that only hides takes no parameter and is one of four condition texts', () => {
    const texts = new Set<string>();
    for (const wildcard of [undefined, 'exclude', 'include'] as (WildcardMode | undefined)[]) {
      for (const scope of [undefined, 'in', 'all'] as (ScopeMode | undefined)[]) {
        const filter = { wildcard, scope };
        expect(onlyHides(filter)).toBe(true);
        const q = new Params();
        texts.add(knowledgeConditions(q, filter).join(' AND '));
        expect(q.values).toEqual([]);
      }
    }
    expect(texts.size).toBe(4);
  });
});
