// The permute benchmark (#41, "Performance"): the world of permute-world.mjs served by a real BIND 9 on loopback,
// and three contenders on the same seeds and the same server — the service's permute source, dnsgen and altdns —
// each one's queries counted at the server (its statistics channel), retries included.
//
// Run: `node bench/permute.mjs` (installs bind9, dnsperf and the peers' Debian dependencies when missing).
// BENCH_SEED (41), PERMUTE_BUDGET (2000, queries a root a scan), BENCH_GEN_RUNS (15, after 10 not counted), BENCH_PEER_RESOLVE (150,000:
// a peer's candidates sent to the server at most, the rest judged from the zones).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';
import { median, queriesAt, resolutionAgainstDnsperf, setup, startNamed } from './permute-dns.mjs';
import { altdnsCandidates, atEqualQueries, dnsgenCandidates, resolvePeer } from './permute-peers.mjs';
import { describeWorld, generateWorld, WILDCARD_ADDRESS } from './permute-world.mjs';

const SEED = Number(process.env.BENCH_SEED ?? 41);
const BUDGET = Number(process.env.PERMUTE_BUDGET ?? 2000);
const GEN_RUNS = Number(process.env.BENCH_GEN_RUNS ?? 15);
const GEN_WARMUP = 10;
const PEER_CAP = Number(process.env.BENCH_PEER_RESOLVE ?? 150_000);
const REPO = new URL('..', import.meta.url).pathname;

function writeResult(name, result) {
  const full = {
    ...result,
    machine: { cpus: cpus().length, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    at: new Date().toISOString(),
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(full, null, 2)}\n`);
}

/**
 * The permute source as committed (HEAD), not dist: dist is rebuilt by whoever builds, and may not hold it. Its
 * files and what they import are transpiled one by one into `dir` (the imports it only names as types vanish).
 */
function buildSource(dir) {
  const out = join(dir, 'build');
  const done = new Set();
  const queue = [
    'src/discovery/sources/permute.source.ts',
    'src/discovery/permute/naming.ts',
    'src/intel/dns/dns-resolver.ts',
  ];
  while (queue.length > 0) {
    const file = queue.pop();
    if (done.has(file)) continue;
    done.add(file);
    const text = execFileSync('git', ['show', `HEAD:${file}`], { cwd: REPO, encoding: 'utf8' });
    for (const m of text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'(\.{1,2}\/[^']+)\.js';/gms)) {
      queue.push(posix.normalize(posix.join(posix.dirname(file), `${m[1]}.ts`)));
    }
    const js = ts.transpileModule(text, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        useDefineForClassFields: false,
      },
    }).outputText;
    const target = join(out, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  symlinkSync(join(REPO, 'node_modules'), join(out, 'node_modules'));
  return { out, files: [...done].sort() };
}

const seedsOf = (world, root) => root.hosts.filter((h) => world.seeds.has(h.host)).map((h) => h.host);

/** What a contender's reported names are worth against the world. */
function score(world, reported, queries, extra = {}) {
  const set = new Set(reported);
  const found = [...set].filter((n) => world.hidden.has(n));
  const echoes = [...set].filter((n) => !world.hidden.has(n) && !world.seeds.has(n));
  // Sub-zones a seed reveals: every zone below a root that holds a seed, or holds a zone that does.
  const revealed = new Set();
  for (const root of world.roots)
    for (const h of root.hosts)
      if (world.seeds.has(h.host))
        for (let z = h.zone; z !== root.name; z = z.slice(z.indexOf('.') + 1)) revealed.add(z);
  const inRevealed = (n) => revealed.has(n.slice(n.indexOf('.') + 1));
  const hiddenRevealed = [...world.hidden].filter(inRevealed);
  const big = world.roots.find((r) => r.big);
  const hiddenBig = big.hosts.filter((h) => world.hidden.has(h.host)).map((h) => h.host);
  return {
    queries,
    reported: set.size,
    hidden_found: found.length,
    hidden_total: world.hidden.size,
    wrong: echoes.length,
    wildcard_echoes: echoes.filter((n) => n.endsWith(`.${world.roots.find((r) => r.wildcard).wildcard}`)).length,
    precision: set.size ? found.length / set.size : 1,
    revealed_subzones: { found: found.filter(inRevealed).length, hidden: hiddenRevealed.length },
    big_root: {
      root: big.name,
      found: found.filter((n) => n.endsWith(`.${big.name}`)).length,
      hidden: hiddenBig.length,
    },
    ...extra,
  };
}

/** A stand-in for PermuteRepository: what the source reads and records, in memory, per root. */
class MemoryRepository {
  constructor(known) {
    this.known = known; // domainId → names
    this.tried = new Map(); // domainId → Set
    this.tally = new Map(); // domainId → Yields
    this.stats = new Map(); // scanId → stats
  }
  async knownNames(domainId) {
    return [...this.known.get(domainId)];
  }
  async recentlyTried(domainId) {
    return new Set(this.tried.get(domainId) ?? []);
  }
  async yields(domainId) {
    return JSON.parse(JSON.stringify(this.tally.get(domainId) ?? {}));
  }
  async recordBatch(domainId, misses, tally) {
    const tried = this.tried.get(domainId) ?? new Set();
    misses.forEach((m) => tried.add(m));
    this.tried.set(domainId, tried);
    const y = this.tally.get(domainId) ?? {};
    for (const [p, t] of Object.entries(tally)) {
      y[p] ??= { tried: 0, hits: 0 };
      y[p].tried += t.tried;
      y[p].hits += t.hits;
    }
    this.tally.set(domainId, y);
  }
  async recordStats(scanId, stats) {
    this.stats.set(scanId, stats);
  }
}

/** One scan of every root by the permute source: the names it reported, each root's stats. */
async function permuteScan(PermuteSource, DnsResolver, named, world, repository, scan) {
  const env = { PERMUTE_BUDGET: BUDGET, PERMUTE_DEPTH: 2, PERMUTE_RETRY_DAYS: 30, DNS_CONCURRENCY: 50 };
  const resolver = new DnsResolver([named.server], 2000);
  const source = new PermuteSource(env, resolver, resolver, repository);
  const names = [];
  const perRoot = {};
  for (const [domainId, root] of world.roots.entries()) {
    const target = { domainId, scanId: `${scan}-${domainId}`, seedsFrom: null };
    let position = null;
    do {
      const slice = await source.run(
        root.name,
        position,
        { deadline: Date.now() + 60_000, signal: { aborted: false } /* never aborted: the run is not cut short */ },
        target,
      );
      names.push(...slice.names);
      position = slice.next;
    } while (position);
    perRoot[root.name] = repository.stats.get(target.scanId);
  }
  return { names, perRoot };
}

async function main() {
  setup();
  const dir = mkdtempSync(join(tmpdir(), 'sm-permute-bench-'));
  let named;
  try {
    const { out, files } = buildSource(dir);
    const { PermuteSource } = await import(join(out, 'src/discovery/sources/permute.source.js'));
    const { DnsResolver } = await import(join(out, 'src/intel/dns/dns-resolver.js'));
    const { candidatesFor } = await import(join(out, 'src/discovery/permute/naming.js'));
    const world = generateWorld(SEED);
    named = await startNamed(dir, world);
    console.log(`${named.version} on ${named.server}, statistics on ${named.statsPort}`);
    // Sanity: a hidden host answers, a wildcard label answers the wildcard, a made-up name does not.
    const probe = new Resolver({ tries: 1, timeout: 2000 });
    probe.setServers([named.server]);
    const wildcard = world.roots.find((r) => r.wildcard).wildcard;
    if ((await probe.resolve4(`zz-nothing.${wildcard}`))[0] !== WILDCARD_ADDRESS) throw new Error('no wildcard');
    await probe.resolve4([...world.hidden][0]);

    const results = {};
    // (a) The service's permute source: a first scan, then a second with nothing new (the found names known).
    const known = new Map(world.roots.map((r, i) => [i, new Set(seedsOf(world, r))]));
    const repository = new MemoryRepository(known);
    let before = await queriesAt(named);
    let t0 = performance.now();
    const first = await permuteScan(PermuteSource, DnsResolver, named, world, repository, 'first');
    const firstMs = performance.now() - t0;
    const firstQueries = (await queriesAt(named)) - before;
    for (const n of first.names)
      for (const [i, r] of world.roots.entries()) if (n.endsWith(`.${r.name}`)) known.get(i).add(n);
    before = await queriesAt(named);
    const second = await permuteScan(PermuteSource, DnsResolver, named, world, repository, 'second');
    const secondQueries = (await queriesAt(named)) - before;
    results.permute = score(world, first.names, firstQueries, {
      ms: Math.round(firstMs),
      budget_a_root: BUDGET,
      per_root: first.perRoot,
      second_scan: { queries: secondQueries, ratio: secondQueries / firstQueries, new_names: second.names.length },
    });
    // Candidate generation on the big root: candidates a second, the median of several runs.
    const big = world.roots.find((r) => r.big);
    const bigSeeds = seedsOf(world, big);
    const rates = [];
    let count = 0;
    // Warmed first, as the worker's process is after its first scans: the runs before V8 has optimised it are not
    // what a scan costs.
    for (let i = 0; i < GEN_WARMUP; i++) candidatesFor(big.name, bigSeeds, { depth: 2, limit: 1e9 });
    for (let i = 0; i < GEN_RUNS; i++) {
      const g0 = performance.now();
      count = candidatesFor(big.name, bigSeeds, { depth: 2, limit: 1e9 }).length;
      rates.push(count / ((performance.now() - g0) / 1000));
    }
    results.permute.generation = {
      root: big.name,
      seeds: bigSeeds.length,
      candidates: count,
      per_second: Math.round(median(rates)),
      runs: rates.map(Math.round),
    };
    results.permute.missed = missed(world, first.names);
    results.permute.resolution = await resolutionAgainstDnsperf(DnsResolver, named, dir, candidatesFor, big, bigSeeds);
    console.log(
      'permute',
      results.permute.hidden_found,
      'hidden found with',
      firstQueries,
      'queries; second scan',
      secondQueries,
    );

    // (b) dnsgen and (c) altdns: their candidates from the same seeds, one A query each, counted the same way.
    for (const [name, generate] of [
      ['dnsgen', dnsgenCandidates],
      ['altdns', altdnsCandidates],
    ]) {
      const g0 = performance.now();
      const perRoot = world.roots.map((r) => generate(dir, seedsOf(world, r)));
      const candidates = perRoot.flat();
      const genMs = performance.now() - g0;
      console.log(`${name}: ${candidates.length} candidates in ${Math.round(genMs)} ms`);
      t0 = performance.now();
      const { answered, queries, resolution } = await resolvePeer(named, world, candidates, PEER_CAP);
      const ms = performance.now() - t0;
      results[name] = score(world, answered, queries, {
        candidates: candidates.length,
        generation_ms: Math.round(genMs),
        ms: Math.round(ms),
        resolution,
        at_equal_queries: atEqualQueries(world, perRoot, results.permute.per_root),
      });
      console.log(name, results[name].hidden_found, 'hidden found with', queries, 'queries');
    }

    const better = ['dnsgen', 'altdns'].sort((a, b) => results[b].hidden_found - results[a].hidden_found)[0];
    const betterAtEqual = ['dnsgen', 'altdns'].sort(
      (a, b) => results[b].at_equal_queries.hidden_found - results[a].at_equal_queries.hidden_found,
    )[0];
    const p = results.permute;
    const targets = {
      // As the issue words it: 1.5× what the better peer finds in its whole run, with no more queries than it sent.
      hidden_vs_better_peer: {
        peer: better,
        ratio: p.hidden_found / Math.max(1, results[better].hidden_found),
        queries_ratio: p.queries / results[better].queries,
        holds: p.hidden_found >= 1.5 * results[better].hidden_found && p.queries <= results[better].queries,
      },
      // The same spend: each peer's first candidates of each root, as many as permute sent queries on it.
      hidden_vs_better_peer_at_equal_queries: {
        peer: betterAtEqual,
        ratio: p.hidden_found / Math.max(1, results[betterAtEqual].at_equal_queries.hidden_found),
        holds: p.hidden_found >= 1.5 * results[betterAtEqual].at_equal_queries.hidden_found,
      },
      precision: { value: p.precision, holds: p.precision === 1 },
      revealed_subzones: {
        value: p.revealed_subzones.found / p.revealed_subzones.hidden,
        holds: p.revealed_subzones.found >= 0.6 * p.revealed_subzones.hidden,
      },
      big_root: { value: p.big_root.found / p.big_root.hidden, holds: p.big_root.found >= 0.3 * p.big_root.hidden },
      second_scan: { value: p.second_scan.ratio, holds: p.second_scan.ratio <= 0.2 },
      generation: { value: p.generation.per_second, holds: p.generation.per_second >= 500_000 },
      resolution_vs_dnsperf: { value: p.resolution.ratio, holds: p.resolution.ratio >= 0.5 },
    };
    const result = {
      seed: SEED,
      server: named.version,
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim(),
      source_files: files,
      world: describeWorld(world),
      contenders: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v])),
      targets,
    };
    writeResult('permute', result);
    console.log(
      JSON.stringify(
        {
          targets,
          summary: Object.fromEntries(
            Object.entries(results).map(([k, v]) => [
              k,
              {
                queries: v.queries,
                hidden_found: v.hidden_found,
                reported: v.reported,
                precision: v.precision,
                revealed: v.revealed_subzones,
                big: v.big_root,
              },
            ]),
          ),
        },
        null,
        2,
      ),
    );
  } finally {
    if (named) {
      named.child.kill('SIGTERM');
      await new Promise((r) => named.child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The hidden hosts the source did not find, by the shape of their first label: what naming.ts does not guess. */
function missed(world, found) {
  const got = new Set(found);
  const shapes = {};
  const examples = {};
  for (const root of world.roots)
    for (const h of root.hosts) {
      if (!world.hidden.has(h.host) || got.has(h.host)) continue;
      const rel = h.host.slice(0, -(root.name.length + 1));
      const dotted = rel.includes('.');
      const first = dotted ? rel.slice(0, rel.indexOf('.')) : rel;
      const shape = `${dotted ? 'sub-zone ' : ''}${first.replace(/[a-z]+/g, 'w').replace(/[0-9]+/g, '#')}`;
      shapes[shape] = (shapes[shape] ?? 0) + 1;
      if ((examples[shape] ??= []).length < 5) examples[shape].push(h.host);
    }
  return Object.fromEntries(
    Object.entries(shapes)
      .sort((a, b) => b[1] - a[1])
      .map(([s, n]) => [s, { n, examples: examples[s] }]),
  );
}

await main();
