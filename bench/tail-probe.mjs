// Where a large page's tail goes: the built service and the independent floor (bench/independent-floor.mjs), each
// in its own process with --trace-gc, loaded in turn (the order reversed every other round) on one path over the
// seed's domains with knowledge on every host (fillHostIntel), and what each spent in V8's scavenges and
// mark-compacts during each load, beside its req/s and latency. Not part of npm run bench: a question's tool.
// Usage: npm run build && node bench/tail-probe.mjs   (PROBE_PATH, an API path after /api/v1 with {domain};
// PROBE_SECONDS (15), PROBE_ROUNDS (3), PROBE_FLAGS (--trace-gc); results: bench/results/tail-probe.json,
// the traces in /tmp/tail-{service,floor}-gc.log)
import { writeFileSync } from 'node:fs';
import {
  createBenchDatabase,
  domainPaths,
  fillHostIntel,
  inOwnProcess,
  loadTest,
  startService,
  writeResult,
} from './harness.mjs';

const path = process.env.PROBE_PATH ?? '/domains/{domain}/subdomains/new?hours=720&limit=2000&fields=dns,http,takeover';
const seconds = Number(process.env.PROBE_SECONDS ?? 15);
const rounds = Number(process.env.PROBE_ROUNDS ?? 3);
const flags = process.env.PROBE_FLAGS ?? '--trace-gc';

const db = await createBenchDatabase('tail', { hosts: 1_000_000 });
await fillHostIntel(db.ds, { hidden: true });

/** A server's --trace-gc output as it comes (`take`), and `read()`: what came since the last read, summed. */
function traced(file) {
  const lines = [];
  return {
    take: (text) => lines.push(text),
    read() {
      const text = lines.join('');
      lines.length = 0;
      writeFileSync(file, text, { flag: 'a' });
      return gcSummary(text);
    },
  };
}
function gcSummary(text) {
  const out = { scavenge: { n: 0, ms: 0, max: 0 }, mark: { n: 0, ms: 0, max: 0 } };
  for (const m of text.matchAll(
    /(Scavenge|Mark-Compact|Mark-sweep)[^,]*?([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ ([\d.]+) ms/g,
  )) {
    const k = m[1] === 'Scavenge' ? 'scavenge' : 'mark';
    const ms = Number(m[6]);
    out[k].n++;
    out[k].ms += ms;
    out[k].max = Math.max(out[k].max, ms);
    out.heap = `${m[2]} -> ${m[4]} MB`;
  }
  out.scavenge.ms = Math.round(out.scavenge.ms);
  out.mark.ms = Math.round(out.mark.ms);
  return out;
}

const floorGc = traced('/tmp/tail-floor-gc.log');
const serviceGc = traced('/tmp/tail-service-gc.log');
const floor = await inOwnProcess(
  './independent-floor.mjs',
  'startIndependentFloor',
  [db.dbUrl, db.env.DATABASE_POOL_SIZE],
  {
    execArgv: flags.split(' '),
    onOutput: floorGc.take,
  },
);
const service = await startService(db.dbUrl, {}, '.', { execArgv: flags.split(' '), onOutput: serviceGc.take });
const paths = (await domainPaths(service.url, db.token))(path);
console.log(paths[0]);
const results = [];
for (let round = 0; round < rounds; round++) {
  for (const [label, base] of round % 2
    ? [
        ['floor', floor.url],
        ['service', service.url],
      ]
    : [
        ['service', service.url],
        ['floor', floor.url],
      ]) {
    await loadTest({ base, paths, duration: 2, connections: 16, token: db.token });
    (label === 'floor' ? floorGc : serviceGc).read();
    const r = await loadTest({ base, paths, duration: seconds, connections: 16, token: db.token });
    const gc = (label === 'floor' ? floorGc : serviceGc).read();
    const row = {
      round,
      label,
      rps: r.requests.average,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
      non2xx: r.non2xx,
      gc,
    };
    results.push(row);
    console.log(JSON.stringify(row));
  }
}
writeResult('tail-probe', { path, seconds, rounds, flags, connections: 16, results });
service.stop();
await floor.close();
await db.drop();
process.exit(0);
