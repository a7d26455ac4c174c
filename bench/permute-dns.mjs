// The permute benchmark's DNS side: BIND 9 serving the world on loopback (installed from Debian when missing), its
// query counter, and the resolvers that ask it (bench/permute.mjs).
import { execFileSync, execSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { Resolver } from 'node:dns/promises';
import { join } from 'node:path';
import { zoneFiles } from './permute-world.mjs';

const RESOLVE_NAMES = 20_000;
const RESOLVE_RUNS = Number(process.env.BENCH_RESOLVE_RUNS ?? 5);

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

/** The DNS server and the peers' dependencies, from Debian, when the machine lacks them. */
export function setup() {
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

export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** BIND 9, authoritative for the world's roots, no recursion, its statistics on a second loopback port. */
export async function startNamed(dir, world) {
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
export async function queriesAt(named) {
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

export async function mapLimit(items, limit, fn) {
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
export async function resolveAll(named, names) {
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
 * Resolution: the names a second the service's resolver gets through (DnsResolver.addresses, one A query a name,
 * DNS_CONCURRENCY 50 in flight) against dnsperf's on the same server and names (one A query each, 50 outstanding),
 * alternated, the median of RESOLVE_RUNS each. The names are the big root's candidates: mostly names that do not exist.
 */
export async function resolutionAgainstDnsperf(DnsResolver, named, dir, candidatesFor, big, bigSeeds) {
  // The big root's candidates, over again until there are RESOLVE_NAMES: a run of a few thousand names is over in
  // tens of milliseconds, too short to time on a shared machine.
  const candidates = candidatesFor(big.name, bigSeeds, { depth: 2, limit: RESOLVE_NAMES }).map((c) => c.host);
  const names = Array.from({ length: RESOLVE_NAMES }, (_, i) => candidates[i % candidates.length]);
  const file = join(dir, 'dnsperf-names.txt');
  writeFileSync(file, names.map((n) => `${n} A\n`).join(''));
  const resolver = new DnsResolver([named.server], 3000);
  const ours = [];
  const theirs = [];
  const perName = [];
  for (let i = 0; i < RESOLVE_RUNS; i++) {
    const before = await queriesAt(named);
    const t0 = performance.now();
    await mapLimit(names, 50, (n) => resolver.addresses(n));
    ours.push(names.length / ((performance.now() - t0) / 1000));
    perName.push(((await queriesAt(named)) - before) / names.length);
    const [host, port] = named.server.split(':');
    const out = execFileSync('dnsperf', ['-s', host, '-p', port, '-d', file, '-n', '1', '-q', '50', '-c', '1'], {
      encoding: 'utf8',
    });
    const qps = /Queries per second:\s+([\d.]+)/.exec(out);
    if (!qps) throw new Error(`dnsperf said:\n${out}`);
    theirs.push(Number(qps[1]));
  }
  return {
    names: names.length,
    per_second: Math.round(median(ours)),
    dnsperf_per_second: Math.round(median(theirs)),
    ratio: +(median(ours) / median(theirs)).toFixed(3),
    queries_a_name: +median(perName).toFixed(3),
    runs: { service: ours.map(Math.round), dnsperf: theirs.map(Math.round) },
  };
}
