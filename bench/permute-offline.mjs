// The permute candidates judged offline: the world of permute-world.mjs taken as the truth, no DNS. Each root is
// scanned the way the permute source spends its budget (permute.source.ts): candidates best first in batches, two
// wildcard probes for each zone a batch reaches first, one query a candidate, one more to confirm a hit, until
// PERMUTE_BUDGET queries are spent. A name answers iff it is a host of the world; a name under the wildcard zone
// that is not a host is its echo, a miss. Then a second scan with nothing new in the world: the first scan's hits
// known, its misses skipped (the negative cache), its yields steering.
//
// Run: `node bench/permute-offline.mjs` (transpiles src/discovery/permute/naming.ts and the files it imports on the
// fly; NAMING=path judges another copy of naming.ts, with its learn.ts and words.ts beside it). BENCH_SEED (41), PERMUTE_BUDGET (2000), BENCH_GEN_RUNS (5), BENCH_JSON=1 prints JSON.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { generateWorld } from './permute-world.mjs';

const SEED = Number(process.env.BENCH_SEED ?? 41);
const BUDGET = Number(process.env.PERMUTE_BUDGET ?? 2000);
const GEN_RUNS = Number(process.env.BENCH_GEN_RUNS ?? 5);
const DEPTH = 2;
const BATCH = 200;
const WILDCARD_PROBES = 2;
const NAMING = process.env.NAMING ?? new URL('../src/discovery/permute/naming.ts', import.meta.url).pathname;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};
const zoneOf = (host) => host.slice(host.indexOf('.') + 1);

/** naming.ts as a module, with the files beside it that it imports (learn.ts, words.ts), transpiled one by one. */
async function loadNaming() {
  const dir = mkdtempSync(join(tmpdir(), 'sm-permute-offline-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    for (const file of ['naming.ts', 'learn.ts', 'words.ts']) {
      const { outputText } = ts.transpileModule(readFileSync(join(dirname(NAMING), file), 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(dir, file.replace(/\.ts$/, '.js')), outputText);
    }
    return await import(join(dir, 'naming.js'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One scan of one root as the source spends it: the hits, the misses (what the negative cache records), the
 * queries, and each pattern's tally.
 */
function scan(candidatesFor, root, known, hosts, skip, yields) {
  const candidates = candidatesFor(root.name, known, { depth: DEPTH, limit: BUDGET, skip, yields });
  const wildcardZone = root.wildcard;
  const probed = new Set();
  const hits = [];
  const misses = [];
  const tally = {};
  let queries = 0;
  let index = 0;
  while (index < candidates.length) {
    const batch = candidates.slice(index, index + BATCH);
    const zones = [...new Set(batch.map((c) => zoneOf(c.host)))].filter((z) => !probed.has(z));
    if (BUDGET - queries < zones.length * WILDCARD_PROBES + 2) break;
    zones.forEach((z) => probed.add(z));
    queries += zones.length * WILDCARD_PROBES;
    const asked = batch.slice(0, Math.max(0, BUDGET - queries));
    queries += asked.length;
    // A name answers iff it is a host; under the wildcard zone every name answers, a non-host with the echo.
    const answered = asked.filter((c) => hosts.has(c.host));
    const confirmable = answered.slice(0, Math.max(0, BUDGET - queries));
    queries += confirmable.length;
    const confirmed = new Set(confirmable.map((c) => c.host));
    for (const c of asked) {
      const y = (tally[c.pattern] ??= { tried: 0, hits: 0 });
      y.tried++;
      if (confirmed.has(c.host)) {
        y.hits++;
        hits.push(c);
      } else if (!hosts.has(c.host)) misses.push(c.host); // no such name, or the wildcard's echo
      // An unconfirmed hit (no budget left) is asked again next time, as the source does.
    }
    index += asked.length;
    if (asked.length < batch.length) break;
  }
  const echoes = wildcardZone
    ? candidates.filter((c) => c.host.endsWith(`.${wildcardZone}`) && !hosts.has(c.host))
    : [];
  return { candidates, hits, misses, queries, tally, echoes: echoes.length };
}

async function main() {
  const { candidatesFor } = await loadNaming();
  const world = generateWorld(SEED);
  // Sub-zones a seed reveals: every zone below a root that holds a seed, or holds a zone that does (as permute.mjs).
  const revealed = new Set();
  for (const root of world.roots)
    for (const h of root.hosts)
      if (world.seeds.has(h.host)) for (let z = h.zone; z !== root.name; z = zoneOf(z)) revealed.add(z);
  const inRevealed = (n) => revealed.has(zoneOf(n));

  const rows = [];
  const total = { hidden: 0, found: 0, sub_hidden: 0, sub_found: 0, candidates: 0, queries: 0, q2: 0, c2: 0, new2: 0 };
  let big = null;
  for (const root of world.roots) {
    const hosts = new Set(root.hosts.map((h) => h.host));
    const seeds = root.hosts.filter((h) => world.seeds.has(h.host)).map((h) => h.host);
    const hidden = root.hosts.filter((h) => world.hidden.has(h.host)).map((h) => h.host);
    const first = scan(candidatesFor, root, seeds, hosts, new Set(), undefined);
    const found = first.hits.filter((c) => world.hidden.has(c.host));
    // Patterns' yields as the repository adds them up, and the second scan with nothing new.
    const known = [...seeds, ...first.hits.map((c) => c.host)];
    const second = scan(candidatesFor, root, known, hosts, new Set(first.misses), first.tally);
    const row = {
      root: root.name,
      hidden: hidden.length,
      found: found.length,
      sub_hidden: hidden.filter(inRevealed).length,
      sub_found: found.filter((c) => inRevealed(c.host)).length,
      candidates: first.candidates.length,
      queries: first.queries,
      hits_per_100q: +((100 * found.length) / Math.max(1, first.queries)).toFixed(1),
      echoes: first.echoes,
      scan2_candidates: second.candidates.length,
      scan2_queries: second.queries,
      scan2_new: second.hits.length,
    };
    rows.push(row);
    total.hidden += row.hidden;
    total.found += row.found;
    total.sub_hidden += row.sub_hidden;
    total.sub_found += row.sub_found;
    total.candidates += row.candidates;
    total.queries += row.queries;
    total.c2 += row.scan2_candidates;
    total.q2 += row.scan2_queries;
    total.new2 += row.scan2_new;
    if (root.big) big = { root, seeds, row };
  }
  // Candidates made a second on the big root: every one (limit 1e9, as permute.mjs measures) and a scan's worth.
  const rate = (limit) => {
    const rates = [];
    const ms = [];
    let count = 0;
    for (let i = 0; i < GEN_RUNS; i++) {
      const t0 = performance.now();
      count = candidatesFor(big.root.name, big.seeds, { depth: DEPTH, limit }).length;
      ms.push(performance.now() - t0);
      rates.push(count / (ms[i] / 1000));
    }
    return {
      candidates: count,
      per_second: Math.round(median(rates)),
      ms_a_call: +median(ms).toFixed(1),
      runs: rates.map(Math.round),
    };
  };
  const summary = {
    seed: SEED,
    budget_a_root: BUDGET,
    hidden_found: `${total.found} / ${total.hidden}`,
    hits_per_100_queries: +((100 * total.found) / total.queries).toFixed(1),
    subzone_found: `${total.sub_found} / ${total.sub_hidden} (${((100 * total.sub_found) / total.sub_hidden).toFixed(0)} %)`,
    big_root: `${big.row.found} / ${big.row.hidden} (${((100 * big.row.found) / big.row.hidden).toFixed(0)} %)`,
    first_scan: { candidates: total.candidates, queries: total.queries },
    second_scan: {
      candidates: total.c2,
      queries: total.q2,
      new_hits: total.new2,
      ratio_candidates: +(total.c2 / total.candidates).toFixed(3),
      ratio_queries: +(total.q2 / total.queries).toFixed(3),
    },
    generation_all: rate(1e9),
    generation_budget: rate(BUDGET),
  };
  if (process.env.BENCH_JSON) {
    console.log(JSON.stringify({ rows, summary }, null, 2));
    return;
  }
  console.table(rows);
  console.log(summary);
}

await main();
