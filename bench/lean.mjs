// Host rows lean by default, knowledge on request (#40), in one run on one copy of the seed in which every host
// carries what the service would know of it, a few hidden (fillHostIntel): the host-row paths asked of
//   service         — this build (node dist/main.js), default rows and rows with fields=BENCH_FIELDS;
//   before          — the build before host knowledge (BENCH_BEFORE_DIR, ../wt-17ae0f0: a git worktree of 17ae0f0
//                     with node_modules linked and `npm run build` run in it, made here when missing), default rows;
//   floor           — bench/independent-floor.mjs on its own copy, default rows and rows with the same fields.
// The path sets: the six host-row endpoints of bench/api.mjs with their rotations (endpoints.mjs), and the seven
// paths on which the build with knowledge on every row was measured against `before` (ab-knowledge-p99-intel).
// Before any load, every path is asked of the service and the floor, default and with the fields, and their rows
// compared: keys in order, and values (the check's counts go with the figures).
// Each set is loaded on the five (server, rows) pairs in turn, the order reversed every other round, for
// BENCH_ROUNDS (5) rounds of a 2 s warm-up and BENCH_SECONDS (5) with BENCH_CONNECTIONS (16) connections. A
// figure is the median of its rounds; a ratio the median of each round's ratio (two measurements seconds apart).
// Targets: default rows ≥ 1.0 × the floor's req/s and p99 ≤ 1.2 × before's; rows with the fields ≥ 1.0 × the
// floor's with them, p99 ≤ its p99. Results: bench/results/lean-<hosts>-intel.json.
// Usage: npm run build && node bench/lean.mjs   (BENCH_HOSTS, BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ROUNDS,
// BENCH_FIELDS (dns,http,takeover), BENCH_BEFORE_DIR, BENCH_ONLY: a regular expression on the sets' names,
// BENCH_SIDES: a comma list of the (server, rows) pairs to load, e.g. service_fields,floor_fields,
// BENCH_COMMIT: the commit dist/ was built from, when another is checked out by now)
import { execFileSync } from 'node:child_process';
import { existsSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { endpointsOf } from './endpoints.mjs';
import {
  DEFAULT_ROOTS,
  commitOf,
  createBenchDatabase,
  domainPaths,
  fillHostIntel,
  inAlternatingRounds,
  inOwnProcess,
  loadTest,
  median,
  startService,
  writeResult,
} from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const fields = process.env.BENCH_FIELDS ?? 'dns,http,takeover';
const beforeDir = process.env.BENCH_BEFORE_DIR ?? '../wt-17ae0f0';
const BEFORE = '17ae0f0';

// The build before host knowledge, made once: a worktree of BEFORE beside this checkout, this checkout's
// node_modules linked in (its dependencies are the same ones), built.
const onlySides = process.env.BENCH_SIDES?.split(',') ?? null;
const loadsBefore = !onlySides || onlySides.includes('before');
if (loadsBefore && !existsSync(join(beforeDir, 'dist', 'main.js'))) {
  console.log(`preparing ${beforeDir}: a worktree of ${BEFORE}, built`);
  if (!existsSync(beforeDir))
    execFileSync('git', ['worktree', 'add', '--detach', beforeDir, BEFORE], { stdio: 'inherit' });
  if (!existsSync(join(beforeDir, 'node_modules')))
    symlinkSync(join(process.cwd(), 'node_modules'), join(beforeDir, 'node_modules'));
  execFileSync('npm', ['run', 'build'], { cwd: beforeDir, stdio: 'inherit' });
}
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;

// The default row of each host list, key by key (docs/api.md).
const DEFAULT_KEYS = [
  [/\/domains\/[^/]+\/subdomains\/new/, ['id', 'host', 'first_seen_at', 'sources', 'in_scope']],
  [/\/domains\/[^/]+\/subdomains/, ['id', 'host', 'first_seen_at', 'is_active', 'sources', 'in_scope']],
  [/\/platforms\/[^/]+\/subdomains\/new/, ['id', 'host', 'domain', 'first_seen_at', 'sources', 'in_scope']],
  [/\/platforms\/[^/]+\/subdomains/, ['host', 'domain', 'is_active', 'sources', 'in_scope']],
  [/\/subdomains\/new/, ['id', 'host', 'domain', 'first_seen_at', 'sources', 'in_scope']],
  [/\/subdomains\/search/, ['id', 'host', 'domain', 'first_seen_at', 'is_active', 'sources', 'in_scope']],
];
const keysOf = (path) => DEFAULT_KEYS.find(([pattern]) => pattern.test(path.split('?')[0]))[1];
const withFields = (path) => `${path}${path.includes('?') ? '&' : '?'}fields=${fields}`;

const db = await createBenchDatabase('lean', { hosts });
await fillHostIntel(db.ds, { hidden: true });
// The floor's copy is taken before the services open the database (a template has no other session).
const floor = await inOwnProcess('./independent-floor.mjs', 'startIndependentFloor', [
  db.dbUrl,
  db.env.DATABASE_POOL_SIZE,
]);
const service = await startService(db.dbUrl);
const before = loadsBefore ? await startService(db.dbUrl, {}, beforeDir) : null;

const get = async (base, path) => {
  const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': db.token } });
  if (!res.ok) throw new Error(`${base}${path}: ${res.status} ${await res.text()}`);
  return res.json();
};
const HOST_ROWS = /^GET \/(domains\/\{domain\}\/subdomains|subdomains\/|platforms\/\{slug\}\/subdomains)/;
const apiSets = (await endpointsOf(service.url, db.token)).filter((e) => HOST_ROWS.test(e.name));
const expand = await domainPaths(service.url, db.token);
const abSets = [
  '/subdomains/new?limit=500',
  '/domains/{domain}/subdomains/new',
  '/domains/{domain}/subdomains/new?hours=720&limit=2000',
  '/platforms/hackerone/subdomains/new',
  '/platforms/hackerone/subdomains/new?hours=168&limit=2000',
  '/domains/{domain}/subdomains?limit=100',
  '/subdomains/search?q=cdn',
].map((path) => ({ name: path, paths: expand(path) }));
const sets = [...apiSets.map((s) => ({ ...s, group: 'api' })), ...abSets.map((s) => ({ ...s, group: 'ab' }))].filter(
  (s) => !only || only.test(s.name),
);

/**
 * The service's rows against the floor's on every path of a set, default and with the fields: the documented keys
 * in order on both (then the fields asked, in order), and the same values. Counts, and the first difference.
 */
async function compare(set) {
  const check = { paths: 0, rows: 0, key_mismatches: 0, value_mismatches: 0, failed: 0, first_difference: null };
  const extra = fields.split(',');
  for (const path of set.paths) {
    for (const [asked, keys] of [
      [path, keysOf(path)],
      [withFields(path), [...keysOf(path), ...extra]],
    ]) {
      check.paths++;
      const differ = (what) => {
        check.first_difference ??= { path: asked, ...what };
      };
      const [s, f] = await Promise.all([get(service.url, asked), get(floor.url, asked)]).catch((e) => {
        check.failed++;
        differ({ failed: e.message });
        return [];
      });
      if (!s) continue;
      if (s.data.length !== f.data.length) {
        check.value_mismatches++;
        differ({ rows: { service: s.data.length, floor: f.data.length } });
      }
      s.data.forEach((row, i) => {
        check.rows++;
        const other = f.data[i];
        for (const [side, r] of [
          ['service', row],
          ['floor', other],
        ]) {
          if (r && !isDeepStrictEqual(Object.keys(r), keys)) {
            check.key_mismatches++;
            differ({ side, keys: Object.keys(r), expected: keys });
          }
        }
        if (other && !isDeepStrictEqual(row, other)) {
          check.value_mismatches++;
          differ({ service: row, floor: other });
        }
      });
    }
  }
  return check;
}

const summary = (r) => ({
  rps: Math.round(r.requests.average),
  p50: r.latency.p50,
  p99: r.latency.p99,
  errors: r.errors + r.timeouts + r.non2xx,
});
const acrossRounds = (runs) =>
  runs.includes(undefined)
    ? null
    : {
        rps: median(runs.map((r) => r.rps)),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
      };
/** The median of each round's a ÷ b of a figure (a p99 under 1 ms counts as 1 ms); null where a side was not loaded. */
const paired = (measured, a, b, figure) =>
  measured.some((m) => !m[a] || !m[b])
    ? null
    : +median(measured.map((m) => m[a][figure] / Math.max(m[b][figure], figure === 'p99' ? 1 : 0))).toFixed(3);

const sides = [
  ['service', { base: service.url, fields: false }],
  ['before', { base: before?.url, fields: false }],
  ['floor', { base: floor.url, fields: false }],
  ['service_fields', { base: service.url, fields: true }],
  ['floor_fields', { base: floor.url, fields: true }],
].filter(([label]) => !onlySides || onlySides.includes(label));
const results = [];
const write = (complete) =>
  writeResult(`lean-${hosts}-intel${only || onlySides ? '-only' : ''}`, {
    benchmark: 'lean',
    hosts,
    roots: Number(process.env.BENCH_ROOTS ?? DEFAULT_ROOTS),
    seconds,
    connections,
    rounds,
    fields,
    only: only?.source ?? null,
    sides: onlySides,
    // What is measured is dist/ as it was built, which may be older than the commit checked out by the time this is
    // written: BENCH_COMMIT names the commit it was built from.
    ...(process.env.BENCH_COMMIT ? { commit: process.env.BENCH_COMMIT } : {}),
    dist_built_at: statSync(new URL('../dist/main.js', import.meta.url)).mtime.toISOString(),
    before: { dir: beforeDir, head: commitOf(beforeDir) },
    complete,
    results,
  });
for (const set of sets) {
  const check = await compare(set);
  const measured = await inAlternatingRounds(sides, rounds, async ({ base, fields: asks }) => {
    const paths = asks ? set.paths.map(withFields) : set.paths;
    await loadTest({ base, paths, duration: 2, connections, token: db.token });
    return summary(await loadTest({ base, paths, duration: seconds, connections, token: db.token }));
  });
  const of = (label) => acrossRounds(measured.map((m) => m[label]));
  const row = {
    set: set.name,
    group: set.group,
    paths: set.paths.length,
    check,
    default: {
      service: of('service'),
      before: of('before'),
      floor: of('floor'),
      rps_to_floor: paired(measured, 'service', 'floor', 'rps'),
      p99_to_floor: paired(measured, 'service', 'floor', 'p99'),
      rps_to_before: paired(measured, 'service', 'before', 'rps'),
      p99_to_before: paired(measured, 'service', 'before', 'p99'),
    },
    fields: {
      service: of('service_fields'),
      floor: of('floor_fields'),
      rps_to_floor: paired(measured, 'service_fields', 'floor_fields', 'rps'),
      p99_to_floor: paired(measured, 'service_fields', 'floor_fields', 'p99'),
    },
    rounds: measured,
  };
  results.push(row);
  const f = (x) => (x ? `${x.rps} req/s p99 ${x.p99} ms${x.errors ? ` (${x.errors} errors)` : ''}` : '—');
  console.log(
    `${set.name} [${set.paths.length} paths; ${check.rows} rows checked, ${check.key_mismatches} key and ` +
      `${check.value_mismatches} value mismatches, ${check.failed} failed]\n` +
      `  default: service ${f(row.default.service)} | before ${f(row.default.before)} | floor ${f(row.default.floor)}` +
      ` | ÷ floor ${row.default.rps_to_floor}, p99 ÷ before ${row.default.p99_to_before}\n` +
      `  fields=${fields}: service ${f(row.fields.service)} | floor ${f(row.fields.floor)}` +
      ` | ÷ floor ${row.fields.rps_to_floor}, p99 ÷ floor ${row.fields.p99_to_floor}`,
  );
  if (check.first_difference) console.log(`  first difference: ${JSON.stringify(check.first_difference)}`);
  // After every set, so that a run cut short keeps the sets it measured.
  write(false);
}

// Written before the servers and copies go: a failure while cleaning up loses no figure.
write(true);
service.stop();
before?.stop();
await floor.close();
await db.drop();
