// Where a large page's tail goes: the built service and the independent floor (bench/independent-floor.mjs), each
// in its own process with --trace-gc, loaded in turn (the order reversed every other round) on one path over the
// seed's domains with knowledge on every host (fillHostIntel), and what each spent in V8's scavenges and
// mark-compacts during each load, beside its req/s and latency. Not part of npm run bench: a question's tool.
// Usage: npm run build && node bench/tail-probe.mjs   (PROBE_PATH, an API path after /api/v1 with {domain};
// PROBE_SECONDS (15), PROBE_ROUNDS (3), PROBE_FLAGS (--trace-gc); results: bench/results/tail-probe.json,
// the traces in /tmp/tail-{service,floor}-gc.log)
import { spawn, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createBenchDatabase, fillHostIntel, loadTest, writeResult } from './harness.mjs';

const path = process.env.PROBE_PATH ?? '/domains/{domain}/subdomains/new?hours=720&limit=2000&fields=dns,http,takeover';
const seconds = Number(process.env.PROBE_SECONDS ?? 15);
const rounds = Number(process.env.PROBE_ROUNDS ?? 3);
const flags = process.env.PROBE_FLAGS ?? '--trace-gc';

const db = await createBenchDatabase('tail', { hosts: 1_000_000 });
await fillHostIntel(db.ds, { hidden: true });

function traced(child, file) {
  const lines = [];
  child.stdout.on('data', (d) => lines.push(d.toString()));
  return () => {
    const text = lines.join('');
    lines.length = 0;
    writeFileSync(file, text, { flag: 'a' });
    return gcSummary(text);
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

// The floor in a process of its own with the flags, its stdout ours to read.
const floorChild = fork(
  new URL('./own-process.mjs', import.meta.url),
  [
    new URL('./independent-floor.mjs', import.meta.url).href,
    'startIndependentFloor',
    JSON.stringify([db.dbUrl, db.env.DATABASE_POOL_SIZE]),
  ],
  { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], execArgv: flags.split(' ') },
);
const floorGc = traced(floorChild, '/tmp/tail-floor-gc.log');
const floorUrl = await new Promise((r) => floorChild.once('message', (m) => r(m.url)));
const port = 3000 + (process.pid % 1000);
const serviceChild = spawn(process.execPath, [...flags.split(' '), 'dist/main.js'], {
  env: {
    PATH: process.env.PATH,
    DATABASE_URL: db.dbUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    WORKER: 'off',
    DOCS: 'off',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const serviceGc = traced(serviceChild, '/tmp/tail-service-gc.log');
const service = { url: `http://127.0.0.1:${port}`, stop: () => serviceChild.kill('SIGTERM') };
for (;;) {
  if (
    await fetch(`${service.url}/health/live`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break;
  await new Promise((r) => setTimeout(r, 200));
}
const get = async (base, p) => (await fetch(`${base}${p}`, { headers: { 'x-api-key': db.token } })).json();
const bySize = (await get(service.url, '/api/v1/domains?sort=total_subdomains&limit=1000')).data.map((d) => d.domain);
const picked = [0, 1, 5, 20, 100, 300, 600, 900].map((i) => bySize[Math.min(i, bySize.length - 1)]);
const paths = path.includes('{domain}')
  ? picked.map((d) => `/api/v1${path.replaceAll('{domain}', d)}`)
  : [`/api/v1${path}`];
console.log(paths[0]);
const results = [];
for (let round = 0; round < rounds; round++) {
  for (const [label, base] of round % 2
    ? [
        ['floor', floorUrl],
        ['service', service.url],
      ]
    : [
        ['service', service.url],
        ['floor', floorUrl],
      ]) {
    await loadTest({ base, paths, duration: 2, connections: 16, token: db.token });
    (label === 'floor' ? floorGc : serviceGc)();
    const r = await loadTest({ base, paths, duration: seconds, connections: 16, token: db.token });
    const gc = (label === 'floor' ? floorGc : serviceGc)();
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
floorChild.send('close');
await db.drop();
process.exit(0);
