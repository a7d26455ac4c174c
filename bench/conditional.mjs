// Polls that find nothing new, and aggregates, against both floors' 200s, in one run on the same data:
//   304     — the service answering If-None-Match with the ETag of the answer it gave before (no SQL runs);
//   cached  — the service's aggregates (/stats, /stats/top-domains, /stats/timeseries, /platforms, /scans/status)
//             asked again with no If-None-Match: computed once per data version and minute, then from memory;
//   floors  — bench/independent-floor.mjs (node:http + pg, its own SQL and indexes on its own copy) and
//             bench/floor-server.mjs (node:http + pg, the service's statements), answering 200 each time.
// Then freshness: a host is inserted (its own transaction, as a scan's commit) while a client polls a cached
// endpoint with If-None-Match; the time from the commit to the first 200 that lists the host, over BENCH_TRIALS.
// Usage: npm run build && node bench/conditional.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_ROOTS, BENCH_SECONDS,
// BENCH_CONNECTIONS, BENCH_TRIALS)
import pg from 'pg';
import {
  DEFAULT_ROOTS,
  benchDomains,
  createBenchDatabase,
  inOwnProcess,
  loadTest,
  startService,
  writeResult,
} from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const trials = Number(process.env.BENCH_TRIALS ?? 1000);
const roots = Number(process.env.BENCH_ROOTS ?? DEFAULT_ROOTS);

const db = await createBenchDatabase('conditional', { hosts, roots });
const { dbUrl, env, token } = db;
// Its own copy of the data, taken before the service opens the database (a template has no other session).
// Each floor in a process of its own, as the service is (harness.mjs, inOwnProcess).
const independent = await inOwnProcess('./independent-floor.mjs', 'startIndependentFloor', [
  dbUrl,
  env.DATABASE_POOL_SIZE,
]);
const service = await startService(dbUrl);
const index = await (await fetch(`${service.url}/api/v1/`)).json();
const floor = await inOwnProcess('./floor-server.mjs', 'startFloor', [dbUrl, env.DATABASE_POOL_SIZE, index]);
const get = (path, headers = {}) => fetch(`${service.url}${path}`, { headers: { 'x-api-key': token, ...headers } });

const domains = await benchDomains(service.url, token);
const SLUGS = ['hackerone', 'bugcrowd', 'intigriti', 'yeswehack', 'self'];
const v1 = (paths) => paths.map((p) => `/api/v1${p}`);

const polls = [
  { name: 'GET /domains', paths: v1(['/domains', '/domains?offset=1500&limit=100', '/domains?sort=total_subdomains']) },
  { name: 'GET /domains/{domain}/subdomains', paths: v1(domains.map((d) => `/domains/${d}/subdomains?limit=1000`)) },
  { name: 'GET /domains/{domain}/subdomains/new', paths: v1(domains.map((d) => `/domains/${d}/subdomains/new`)) },
  { name: 'GET /subdomains/new', paths: v1(['/subdomains/new', '/subdomains/new?limit=2000']) },
  { name: 'GET /subdomains/search', paths: v1(['/subdomains/search?q=api', '/subdomains/search?q=zzqx-none']) },
  { name: 'GET /platforms/{slug}/subdomains', paths: v1(SLUGS.map((s) => `/platforms/${s}/subdomains?limit=1000`)) },
];
const aggregates = [
  { name: 'GET /stats', paths: v1(['/stats']) },
  { name: 'GET /stats/top-domains', paths: v1(['/stats/top-domains', '/stats/top-domains?hours=168']) },
  { name: 'GET /stats/timeseries', paths: v1(['/stats/timeseries', '/stats/timeseries?hours=168']) },
  { name: 'GET /platforms', paths: v1(['/platforms']) },
  { name: 'GET /platforms/{slug}', paths: v1(SLUGS.map((s) => `/platforms/${s}`)) },
  { name: 'GET /scans/status', paths: v1(['/scans/status']) },
];

const load = (base, paths) => loadTest({ base, paths, duration: seconds, connections, token });
const summary = (r) => ({
  rps: Math.round(r.requests.average),
  p50: r.latency.p50,
  p99: r.latency.p99,
  '2xx': r['2xx'],
  '3xx': r['3xx'],
  other: r['4xx'] + r['5xx'] + r.errors + r.timeouts,
});

async function measure(endpoint, conditional) {
  let paths = endpoint.paths;
  if (conditional) {
    paths = await Promise.all(
      endpoint.paths.map(async (path) => ({
        path,
        headers: { 'if-none-match': (await get(path)).headers.get('etag') },
      })),
    );
  }
  await loadTest({ base: service.url, paths, duration: 2, connections, token });
  const served = summary(await load(service.url, paths));
  await loadTest({ base: independent.url, paths: endpoint.paths, duration: 2, connections, token });
  const own = summary(await load(independent.url, endpoint.paths));
  await loadTest({ base: floor.url, paths: endpoint.paths, duration: 2, connections, token });
  const floored = summary(await load(floor.url, endpoint.paths));
  const row = {
    endpoint: endpoint.name,
    kind: conditional ? '304' : 'cached',
    service: served,
    independent_floor: own,
    node_floor: floored,
  };
  row.ratio_to_independent_floor = +(served.rps / own.rps).toFixed(2);
  row.ratio_to_node_floor = +(served.rps / floored.rps).toFixed(2);
  console.log(
    `${row.endpoint} (${row.kind}): service ${served.rps} req/s p99 ${served.p99} ms (2xx ${served['2xx']}, 304 ${served['3xx']}) | ` +
      `independent floor ${own.rps} req/s p99 ${own.p99} ms (ratio ${row.ratio_to_independent_floor}) | ` +
      `Node floor ${floored.rps} req/s p99 ${floored.p99} ms (ratio ${row.ratio_to_node_floor})`,
  );
  return row;
}

const results = [];
for (const endpoint of polls) results.push(await measure(endpoint, true));
for (const endpoint of aggregates) results.push(await measure(endpoint, false));

// Freshness: the newest hosts of one domain, polled with If-None-Match while hosts arrive one at a time.
const writer = new pg.Client({ connectionString: dbUrl });
await writer.connect();
const [{ id: domainId }] = (await writer.query(`SELECT id FROM domains WHERE domain = $1`, [domains[3]])).rows;
const feed = `/api/v1/domains/${domains[3]}/subdomains/new?limit=5`;
const delays = [];
for (let i = 0; i < trials; i++) {
  let etag = (await get(feed)).headers.get('etag');
  if ((await get(feed, { 'if-none-match': etag })).status !== 304) etag = (await get(feed)).headers.get('etag');
  const host = `fresh-${process.pid}-${i}.${domains[3]}`;
  await writer.query(`INSERT INTO hosts (domain_id, host, first_seen_at, last_seen_at) VALUES ($1, $2, now(), now())`, [
    domainId,
    host,
  ]);
  const committed = process.hrtime.bigint();
  for (;;) {
    const res = await get(feed, { 'if-none-match': etag });
    if (res.status === 200 && (await res.text()).includes(host)) break;
    if (Number(process.hrtime.bigint() - committed) / 1e6 > 10_000) throw new Error(`${host} never showed`);
  }
  delays.push(Number(process.hrtime.bigint() - committed) / 1e6);
}
await writer.end();
delays.sort((a, b) => a - b);
const at = (q) => +delays[Math.min(delays.length - 1, Math.floor(q * delays.length))].toFixed(2);
const freshness = { trials, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: at(1) };
console.log(
  `freshness over ${trials} trials: p50 ${freshness.p50_ms} ms, p99 ${freshness.p99_ms} ms, max ${freshness.max_ms} ms`,
);

const name = `conditional-${hosts}${roots === DEFAULT_ROOTS ? '' : `-${roots}roots`}`;
writeResult(name, { benchmark: 'conditional', hosts, roots, seconds, connections, results, freshness });
service.stop();
await floor.close();
await independent.close();
await db.drop();
