// The permute benchmark (#41, "Performance"): the world of permute-world.mjs served by a real BIND 9 on loopback,
// and three contenders on the same seeds and the same server — the service's permute source, dnsgen and altdns —
// each one's queries counted at the server (its statistics channel), retries included.
//
// Run: `node bench/permute.mjs` (installs bind9, dnsperf and the peers' Debian dependencies when missing).
// BENCH_SEED (41), PERMUTE_BUDGET (2000, queries a root a scan), BENCH_GEN_RUNS (7), BENCH_PEER_RESOLVE (150,000:
// a peer's candidates sent to the server at most, the rest judged from the zones).
import { execFileSync, execSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { Resolver } from 'node:dns/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';
import { describeWorld, generateWorld, WILDCARD_ADDRESS, zoneFiles } from './permute-world.mjs';

const SEED = Number(process.env.BENCH_SEED ?? 41);
const BUDGET = Number(process.env.PERMUTE_BUDGET ?? 2000);
const GEN_RUNS = Number(process.env.BENCH_GEN_RUNS ?? 7);
const PEER_CAP = Number(process.env.BENCH_PEER_RESOLVE ?? 150_000);
const REPO = new URL('..', import.meta.url).pathname;
const PEERS = join(REPO, '..', 'shared', 'peers');

// Not harness.mjs: it loads dist, which this bench does not use (the source is transpiled from HEAD below).
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};
function writeResult(name, result) {
  const full = {
    ...result,
    machine: { cpus: cpus().length, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    at: new Date().toISOString(),
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(full, null, 2)}\n`);
}

/** The DNS server and the peers' dependencies, from Debian, when the machine lacks them. */
function setup() {
  const has = (cmd) => {
    try {
      execSync(cmd, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const missing = [];
  if (!has('command -v named')) missing.push('bind9');
  if (!has('command -v dnsperf')) missing.push('dnsperf');
  if (!has('/usr/bin/python3 -c "import click, termcolor, dns.resolver"'))
    missing.push('python3-click', 'python3-termcolor', 'python3-dnspython');
  if (missing.length === 0) return;
  console.log(`installing ${missing.join(' ')}`);
  execSync(`apt-get install -y ${missing.join(' ')} || (apt-get update && apt-get install -y ${missing.join(' ')})`, {
    stdio: 'inherit',
  });
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

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** BIND 9, authoritative for the world's roots, no recursion, its statistics on a second loopback port. */
async function startNamed(dir, world) {
  const [port, statsPort] = [await freePort(), await freePort()];
  const files = zoneFiles(world);
  for (const [root, text] of Object.entries(files)) writeFileSync(join(dir, `${root}.zone`), text);
  const conf = `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  allow-query { any; };
  dnssec-validation no;
  notify no;
};
controls { };
statistics-channels { inet 127.0.0.1 port ${statsPort} allow { 127.0.0.1; }; };
${Object.keys(files)
  .map((root) => `zone "${root}" { type primary; file "${root}.zone"; };`)
  .join('\n')}
`;
  writeFileSync(join(dir, 'named.conf'), conf);
  execFileSync('named-checkconf', ['-z', join(dir, 'named.conf')], { stdio: 'ignore' });
  const child = spawn('named', ['-g', '-4', '-c', join(dir, 'named.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  for (let i = 0; i < 100; i++) {
    if (/ running\n/.test(log)) break;
    if (child.exitCode !== null) throw new Error(`named exited:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const version = execFileSync('named', ['-v'], { encoding: 'utf8' }).trim();
  return { child, port, statsPort, version, server: `127.0.0.1:${port}` };
}

/** Queries the server has received (its QUERY opcode counter), every retry included. */
async function queriesAt(named) {
  // node:http, one connection a request: BIND's small HTTP server resets undici's (fetch) pipelined requests.
  const text = await new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port: named.statsPort, path: '/json/v1/server', agent: false }, (res) => {
      let b = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (b += d));
      res.on('end', () => resolve(b));
    });
    req.on('error', reject);
  });
  return JSON.parse(text).opcodes?.QUERY ?? 0;
}

async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

/** One A query a name, one try: the names that answered (whatever they answered). */
async function resolveAll(named, names) {
  const resolver = new Resolver({ timeout: 3000, tries: 1 });
  resolver.setServers([named.server]);
  const answered = await mapLimit(names, 100, async (n) => {
    try {
      return (await resolver.resolve4(n)).length > 0;
    } catch {
      return false;
    }
  });
  return names.filter((_, i) => answered[i]);
}

/**
 * A peer's candidates resolved at the server, at most `cap` of them (an even stride through the list): the peers
 * make millions on the big root, more than this machine resolves in a run (≈ 6,000 a second). The rest are judged
 * against the zones' contents (a name answers iff it is a host or under the wildcard zone, which is what BIND
 * answers), and their queries counted as the sent part's queries a name (one, measured).
 */
async function resolvePeer(named, world, names, cap) {
  const step = Math.max(1, Math.ceil(names.length / cap));
  const sent = names.filter((_, i) => i % step === 0);
  const rest = names.filter((_, i) => i % step !== 0);
  const before = await queriesAt(named);
  const answered = await resolveAll(named, sent);
  const atServer = (await queriesAt(named)) - before;
  const all = new Set(world.roots.flatMap((r) => r.hosts.map((h) => h.host)));
  const wildcards = world.roots.filter((r) => r.wildcard).map((r) => `.${r.wildcard}`);
  const judged = rest.filter((n) => all.has(n) || wildcards.some((w) => n.endsWith(w)));
  // What the sent part tells of the judging: every name the zones hold answered, and nothing else.
  const agree = answered.length === sent.filter((n) => all.has(n) || wildcards.some((w) => n.endsWith(w))).length;
  return {
    answered: [...answered, ...judged],
    queries: Math.round(atServer * (names.length / sent.length)),
    resolution: {
      sent: sent.length,
      queries_at_server: atServer,
      judged_from_zones: rest.length,
      judging_agrees: agree,
    },
  };
}

const seedsOf = (world, root) => root.hosts.filter((h) => world.seeds.has(h.host)).map((h) => h.host);

/** dnsgen's candidates for a root's seeds (its default word list and options), the seeds left out. */
function dnsgenCandidates(dir, seeds) {
  const file = join(dir, 'dnsgen-in.txt');
  writeFileSync(file, seeds.join('\n'));
  const out = execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      'import sys; from dnsgen import dnsgen; [print(n) for n in dnsgen.generate(open(sys.argv[1]).read().split())]',
      file,
    ],
    { env: { ...process.env, PYTHONPATH: PEERS }, encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  const known = new Set(seeds);
  return [...new Set(out.split('\n').filter((n) => n && !known.has(n)))];
}

/** altdns's candidates for a root's seeds (its own words.txt, no number suffixes), the seeds left out. */
function altdnsCandidates(dir, seeds) {
  const input = join(dir, 'altdns-in.txt');
  const output = join(dir, 'altdns-out.txt');
  writeFileSync(input, `${seeds.join('\n')}\n`);
  rmSync(output, { force: true });
  execFileSync(
    '/usr/bin/python3',
    [join(PEERS, 'altdns/altdns_main.py'), '-i', input, '-o', output, '-w', join(PEERS, 'altdns/words.txt')],
    { env: { ...process.env, PYTHONPATH: PEERS }, stdio: 'ignore', cwd: dir },
  );
  const known = new Set(seeds);
  return [
    ...new Set(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter((n) => n && !known.has(n)),
    ),
  ];
}

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
    const target = { domainId, scanId: `${scan}-${domainId}` };
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
      const candidates = world.roots.flatMap((r) => generate(dir, seedsOf(world, r)));
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
      });
      console.log(name, results[name].hidden_found, 'hidden found with', queries, 'queries');
    }

    const better = ['dnsgen', 'altdns'].sort((a, b) => results[b].hidden_found - results[a].hidden_found)[0];
    const p = results.permute;
    const targets = {
      hidden_vs_better_peer: {
        peer: better,
        ratio: p.hidden_found / Math.max(1, results[better].hidden_found),
        queries_ratio: p.queries / results[better].queries,
        holds: p.hidden_found >= 1.5 * results[better].hidden_found && p.queries <= results[better].queries,
      },
      precision: { value: p.precision, holds: p.precision === 1 },
      revealed_subzones: {
        value: p.revealed_subzones.found / p.revealed_subzones.hidden,
        holds: p.revealed_subzones.found >= 0.6 * p.revealed_subzones.hidden,
      },
      big_root: { value: p.big_root.found / p.big_root.hidden, holds: p.big_root.found >= 0.3 * p.big_root.hidden },
      second_scan: { value: p.second_scan.ratio, holds: p.second_scan.ratio <= 0.2 },
      generation: { value: p.generation.per_second, holds: p.generation.per_second >= 500_000 },
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
