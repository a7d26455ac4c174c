// The export of every host as txt against its floor, on the PostgreSQL server, in one run on the same rows:
//   service — GET /api/v1/export?format=txt from the built service (node dist/main.js, WORKER=off),
//   floor   — psql -c "\copy (SELECT … the same rows, same order …) TO STDOUT".
// Reports rows/s (median of BENCH_RUNS alternated runs), the ratio, and the server's RSS growth during the export.
// Usage: npm run build && node bench/export.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_RUNS)
import { spawn } from 'node:child_process';
import { createBenchDatabase, median, startService, writeResult } from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 3);

const db = await createBenchDatabase('export', { hosts });
const { dbUrl, token, seedSeconds } = db;
const service = await startService(dbUrl);
const baseUrl = service.url;
const rss = service.rss;

async function serviceRun() {
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 25);
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${baseUrl}/api/v1/export?format=txt`, { headers: { 'x-api-key': token } });
  let lines = 0;
  for await (const chunk of res.body) for (const byte of chunk) if (byte === 10) lines++;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  clearInterval(sampler);
  return { rows: lines, seconds, rss_growth_mb: (peak - before) / 2 ** 20, peak_rss_mb: peak / 2 ** 20 };
}

function floorRun() {
  const sql = `SELECT h.host FROM domains d JOIN hosts h ON h.domain_id = d.id ORDER BY d.domain, h.host`;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const psql = spawn('psql', [dbUrl, '-qAt', '-c', `\\copy (${sql}) TO STDOUT`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let lines = 0;
    psql.stdout.on('data', (chunk) => {
      for (const byte of chunk) if (byte === 10) lines++;
    });
    psql.on('error', reject);
    psql.on('close', () => resolve({ rows: lines, seconds: Number(process.hrtime.bigint() - t0) / 1e9 }));
  });
}

await serviceRun(); // warm-up: caches and the connection pool
const serviceRuns = [];
const floor = [];
for (let i = 0; i < runs; i++) {
  serviceRuns.push(await serviceRun());
  floor.push(await floorRun());
}
service.stop();
await db.drop();

const rate = (r) => r.rows / r.seconds;
const result = {
  benchmark: 'export-txt',
  hosts,
  runs,
  seed_seconds: seedSeconds,
  service: {
    rows: serviceRuns[0].rows,
    rows_per_second: median(serviceRuns.map(rate)),
    rss_growth_mb: median(serviceRuns.map((r) => r.rss_growth_mb)),
    peak_rss_mb: Math.max(...serviceRuns.map((r) => r.peak_rss_mb)),
    all: serviceRuns,
  },
  floor: { rows: floor[0].rows, rows_per_second: median(floor.map(rate)), all: floor },
};
result.ratio_to_floor = +(result.service.rows_per_second / result.floor.rows_per_second).toFixed(2);
writeResult(`export-${hosts}`, result);
console.log(
  `export of ${result.service.rows} hosts as txt (median of ${runs}): service ${Math.round(result.service.rows_per_second)} rows/s, ` +
    `psql \\copy ${Math.round(result.floor.rows_per_second)} rows/s, ratio ${result.ratio_to_floor}; ` +
    `server RSS +${result.service.rss_growth_mb.toFixed(1)} MB (peak ${result.service.peak_rss_mb.toFixed(0)} MB)${seedSeconds === null ? '' : `; seeded in ${seedSeconds.toFixed(1)} s`}`,
);
