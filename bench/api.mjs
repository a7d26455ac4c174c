// Every JSON read endpoint of the API under load, in one run on the same data and the same rotating parameters:
//   service            — the built service (node dist/main.js, WORKER=off);
//   Node floor         — bench/floor-server.mjs: node:http + pg running the service's own row statements,
//                        JSON.stringify: what the framework costs (a slow plan of the service slows it alike);
//   independent floor  — bench/independent-floor.mjs: node:http + pg with SQL written from the contract and the
//                        schema alone, on its own copy of the data with the indexes it wants: what the endpoint
//                        could cost;
//   DB floor           — pgbench running the same statements (the key lookup, then the endpoint's) as the Node floor.
// autocannon with BENCH_CONNECTIONS (16) connections for BENCH_SECONDS (10) per endpoint and server, after a
// 2 s warm-up; pgbench with as many clients as the service's pool. Parameters rotate: different domains and
// platforms, search terms that hit and miss, cursors taken from real pages, deep offsets.
// Seeds BENCH_HOSTS (1,000,000) over BENCH_ROOTS (2,000) root domains with seed-demo; results go to
// bench/results/api-<hosts>.json (api-<hosts>-<roots>roots.json for another number of roots).
// BENCH_ROUNDS (1): each endpoint is measured on the three servers that many times, in turn, the order reversed
// every other round; a figure is the median of its rounds, and a ratio the median of the ratios of each round (two
// measurements seconds apart, so the machine's drift between endpoints cancels).
// Usage: npm run build && node bench/api.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_ROOTS, BENCH_SECONDS,
// BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_ONLY, BENCH_INTEL=1 to give every host its host_intel row; results then go
// to api-<hosts>-intel.json)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpointsOf } from './endpoints.mjs';
import { floorStatements } from './floor-server.mjs';
import {
  DEFAULT_ROOTS,
  createBenchDatabase,
  median,
  fillHostIntel,
  inAlternatingRounds,
  inOwnProcess,
  loadTest,
  startService,
  writeResult,
} from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const roots = Number(process.env.BENCH_ROOTS ?? DEFAULT_ROOTS);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
// pgbench's figures are reported beside the targets, not measured against them: a shorter run keeps the bench
// under 15 minutes.
const dbFloorSeconds = Number(process.env.BENCH_DB_FLOOR_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);

const db = await createBenchDatabase('api', { hosts, roots });
const { dbUrl, env, token } = db;
// BENCH_INTEL=1: every host carries what the service would know of it (DNS answer, probe), so host rows read a
// row of host_intel each, as they do on a service with RESOLVE and PROBE on.
const withIntel = process.env.BENCH_INTEL === '1';
if (withIntel) await fillHostIntel(db.ds);
// Its own copy of the data (taken before the service opens the database: a template has no other session) and
// its own indexes on the copy.
// Each floor serves from a process of its own, as the service does: autocannon's work shares no server's event loop.
const independent = await inOwnProcess('./independent-floor.mjs', 'startIndependentFloor', [
  dbUrl,
  env.DATABASE_POOL_SIZE,
]);
const service = await startService(dbUrl);
const index = await (await fetch(`${service.url}/api/v1/`)).json();
const floorServer = await inOwnProcess('./floor-server.mjs', 'startFloor', [dbUrl, env.DATABASE_POOL_SIZE, index]);
// What the floor asks (which paths it knows, the statements pgbench runs), without a server.
const floor = floorStatements(dbUrl);

const endpoints = await endpointsOf(service.url, token);

const load = (base, paths, duration) => loadTest({ base, paths, duration, connections, token });
const summary = (r) => ({
  rps: Math.round(r.requests.average),
  p50: r.latency.p50,
  p99: r.latency.p99,
  errors: r.errors + r.timeouts + r.non2xx,
});

/** pgbench over the statements of every path (one script per path, equal weights); tps and latencies. */
async function dbFloor(paths) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-pgbench-'));
  const literal = (v) => `'${String(v).replace(/'/g, "''")}'`;
  const statements = await Promise.all(paths.map((path) => floor.statementsFor(path, token)));
  const scripts = paths.map((path, i) => {
    const sql = statements[i]
      .map(({ sql, params }) => `${params.reduceRight((s, v, n) => s.replaceAll(`$${n + 1}`, literal(v)), sql)};`)
      .map((s) => s.replace(/\s+/g, ' '))
      .join('\n');
    const file = join(dir, `s${i}.sql`);
    writeFileSync(file, `${sql}\n`);
    return ['-f', `${file}@1`];
  });
  const run = spawnSync(
    'pgbench',
    [
      '-n',
      '-M',
      'simple',
      '-c',
      String(env.DATABASE_POOL_SIZE),
      '-j',
      '2',
      '-T',
      String(dbFloorSeconds),
      '-l',
      '--log-prefix',
      join(dir, 'log'),
      ...scripts.flat(),
      dbUrl,
    ],
    // The service's own connection settings (dataSourceOptions): no JIT.
    { encoding: 'utf8', env: { ...process.env, PGOPTIONS: '-c jit=off' } },
  );
  const tps = Number(/tps = ([\d.]+)/.exec(run.stdout)?.[1] ?? NaN);
  const latencies = readdirSync(dir)
    .filter((f) => f.startsWith('log'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
    .map((line) => Number(line.split(' ')[2]) / 1000)
    .sort((a, b) => a - b);
  rmSync(dir, { recursive: true, force: true });
  const at = (q) => +(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(2);
  const failed = Number(/number of failed transactions: (\d+)/.exec(run.stdout)?.[1] ?? 0);
  if (!Number.isFinite(tps)) throw new Error(`pgbench failed: ${run.stderr || run.stdout}`);
  return { rps: Math.round(tps), p50: at(0.5), p99: at(0.99), errors: failed };
}

// BENCH_ONLY: a regular expression; only the endpoints whose name it matches are measured (a trace of a few).
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const results = [];
/** A server's figures over the rounds: the median of each (errors: all of them). */
const acrossRounds = (runs) => ({
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  errors: runs.reduce((sum, r) => sum + r.errors, 0),
});
const ratioAcross = (measured, a, b, figure) =>
  +median(measured.map((m) => m[a][figure] / Math.max(m[b][figure], figure === 'p99' ? 1 : 0))).toFixed(2);
for (const endpoint of endpoints.filter((e) => !only || only.test(e.name))) {
  const floored = endpoint.paths.every((p) => floor.knows(p));
  const servers = [
    ['service', service.url],
    ...(floored ? [['node_floor', floorServer.url]] : []),
    ['independent_floor', independent.url],
  ];
  const measured = await inAlternatingRounds(servers, rounds, async (url) => {
    await load(url, endpoint.paths, 2);
    return summary(await load(url, endpoint.paths, seconds));
  });
  const row = {
    endpoint: endpoint.name,
    paths: endpoint.paths.length,
    service: acrossRounds(measured.map((m) => m.service)),
  };
  if (floored) {
    row.node_floor = acrossRounds(measured.map((m) => m.node_floor));
    row.ratio_to_node_floor = ratioAcross(measured, 'service', 'node_floor', 'rps');
    // An endpoint that asks the database nothing (the index) has no database floor.
    const asks = (await Promise.all(endpoint.paths.map((p) => floor.statementsFor(p, token)))).some((s) => s.length);
    if (asks) {
      row.db_floor = await dbFloor(endpoint.paths);
      row.ratio_to_db_floor = +(row.service.rps / row.db_floor.rps).toFixed(2);
    }
  }
  row.independent_floor = acrossRounds(measured.map((m) => m.independent_floor));
  row.ratio_to_independent_floor = ratioAcross(measured, 'service', 'independent_floor', 'rps');
  // Above 1: the service's p99 is that many times the independent floor's.
  row.p99_to_independent_floor = ratioAcross(measured, 'service', 'independent_floor', 'p99');
  if (rounds > 1) {
    row.rounds = measured;
    row.ratios_to_independent_floor = measured.map((m) => +(m.service.rps / m.independent_floor.rps).toFixed(2));
  }
  results.push(row);
  const f = (x) => (x ? `${x.rps} req/s p50 ${x.p50} p99 ${x.p99} ms` : '—');
  console.log(
    `${row.endpoint}: service ${f(row.service)} | Node floor ${f(row.node_floor)} | independent floor ` +
      `${f(row.independent_floor)} | DB floor ${f(row.db_floor)}` +
      (floored ? ` | ratio ${row.ratio_to_node_floor} (DB ${row.ratio_to_db_floor})` : '') +
      ` | ÷ independent ${row.ratio_to_independent_floor} (p99 ×${row.p99_to_independent_floor})` +
      ` | errors ${row.service.errors}, independent ${row.independent_floor.errors}` +
      (row.ratios_to_independent_floor ? ` | rounds ${row.ratios_to_independent_floor.join(', ')}` : ''),
  );
}

// Written before the servers and copies go: a failure while cleaning up loses no figure.
// A trace of a few endpoints (BENCH_ONLY) goes to a file of its own, never over a full run's figures.
const suffix = `${roots === DEFAULT_ROOTS ? '' : `-${roots}roots`}${withIntel ? '-intel' : ''}${only ? '-only' : ''}`;
writeResult(`api-${hosts}${suffix}`, {
  benchmark: 'api',
  hosts,
  roots,
  seconds,
  connections,
  rounds,
  only: only?.source ?? null,
  seed_seconds: db.seedSeconds,
  results,
});
service.stop();
await floor.close();
await floorServer.close();
await independent.close();
await db.drop();
