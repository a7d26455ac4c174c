// Two builds of the service against each other, in one run, on the same data: for a change whose effect is
// smaller than the machine's drift between two runs. Both services run at once on one copy of the seed; each
// round loads every path on A, then on B (then B before A in the next round), BENCH_SECONDS (5) each with
// BENCH_CONNECTIONS (16) connections, for BENCH_ROUNDS (5) rounds. Reports each path's median req/s and p99 on
// both sides and B ÷ A, both as the ratio of the medians and as the median of each round's ratio. BENCH_INTEL=1
// gives every host what the service would know of it, a few hosts hidden (fillHostIntel). Results: bench/results/ab-<name>.json.
// Usage: npm run build && node bench/ab.mjs NAME DIR_A DIR_B PATH…
//   DIR_A, DIR_B: checkouts whose `dist/` is built (a git worktree of another commit, with node_modules linked);
//   PATH: an API path after /api/v1 with its query, e.g. '/domains?sort=total_subdomains&offset=400'.
//   {domain} in a path is replaced by domains of the seed, from the largest to the 900th, in turn.
import { resolve } from 'node:path';
import {
  DEFAULT_ROOTS,
  commitOf,
  createBenchDatabase,
  domainPaths,
  fillHostIntel,
  loadTest,
  median,
  startService,
  writeResult,
} from './harness.mjs';

const [name, dirA, dirB, ...paths] = process.argv.slice(2);
if (!name || !dirA || !dirB || paths.length === 0) {
  console.error('usage: node bench/ab.mjs NAME DIR_A DIR_B PATH…');
  process.exit(2);
}
const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

const db = await createBenchDatabase(`ab_${name.replace(/\W/g, '_')}`, { hosts });
// BENCH_INTEL=1: every host carries what the service would know of it, a few of them hidden (see fillHostIntel).
if (process.env.BENCH_INTEL === '1') await fillHostIntel(db.ds, { hidden: true });
const a = await startService(db.dbUrl, {}, dirA);
// BENCH_B_NODE_OPTIONS: Node's flags for B alone (a runtime setting of one build against none).
const b = await startService(
  db.dbUrl,
  process.env.BENCH_B_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_B_NODE_OPTIONS } : {},
  dirB,
);
const expand = await domainPaths(a.url, db.token);

const runs = Object.fromEntries(paths.map((p) => [p, { a: [], b: [] }]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
  for (const path of paths) {
    for (const side of order) {
      const base = side === 'a' ? a.url : b.url;
      const result = await loadTest({ base, paths: expand(path), duration: seconds, connections, token: db.token });
      if (result.non2xx || result.errors)
        throw new Error(`${side} ${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      runs[path][side].push({ rps: result.requests.average, p99: result.latency.p99 });
    }
  }
  console.log(`round ${round + 1} of ${rounds} done`);
}
a.stop();
b.stop();

const sideOf = (list) => ({
  rps: Math.round(median(list.map((r) => r.rps))),
  p99_ms: median(list.map((r) => r.p99)),
  rps_runs: list.map((r) => Math.round(r.rps)),
});
const results = paths.map((path) => {
  const A = sideOf(runs[path].a);
  const B = sideOf(runs[path].b);
  return {
    path,
    a: A,
    b: B,
    b_over_a_rps: +(B.rps / A.rps).toFixed(3),
    b_over_a_p99: +(B.p99_ms / A.p99_ms).toFixed(3),
    // Each round's B ÷ A (the two measured back to back), then their median: the machine's drift between rounds
    // falls on both sides of a ratio alike, where the ratio of the two medians takes them from different rounds.
    b_over_a_rps_paired: +median(runs[path].b.map((r, i) => r.rps / runs[path].a[i].rps)).toFixed(3),
  };
});
for (const r of results) {
  console.log(
    `${r.path}\n  A ${r.a.rps} req/s p99 ${r.a.p99_ms} ms  B ${r.b.rps} req/s p99 ${r.b.p99_ms} ms  B/A ${r.b_over_a_rps}` +
      ` (paired ${r.b_over_a_rps_paired})`,
  );
}
writeResult(`ab-${name}`, {
  hosts,
  roots: Number(process.env.BENCH_ROOTS ?? DEFAULT_ROOTS),
  seconds,
  connections,
  rounds,
  intel: process.env.BENCH_INTEL === '1',
  a: { dir: resolve(dirA), head: commitOf(dirA) },
  b: { dir: resolve(dirB), head: commitOf(dirB), node_options: process.env.BENCH_B_NODE_OPTIONS ?? null },
  results,
});
await db.drop();
