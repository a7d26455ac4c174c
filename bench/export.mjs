// The export of every host as txt against its floor, on the PostgreSQL server, in one run on the same rows:
//   service — GET /api/v1/export?format=txt from the built service (node dist/main.js, WORKER=off),
//   floor   — psql -c "\copy (SELECT … the same rows, same order …) TO STDOUT".
// Reports rows/s (median of BENCH_RUNS alternated runs), the ratio, and the server's RSS growth during the export.
// Usage: npm run build && node bench/export.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_RUNS)
import { execSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { ApiKeysRepository } from '../dist/src/auth/api-keys.repository.js';
import { ApiKeysService } from '../dist/src/auth/api-keys.service.js';
import { ApiKeyEntity } from '../dist/src/auth/api-key.entity.js';
import { loadEnvironment } from '../dist/src/config/environment.js';
import { dataSourceOptions } from '../dist/src/database/data-source-options.js';
import { runMigrations } from '../dist/src/database/migrations.js';
import { DemoDataRepository } from '../dist/src/demo/demo-data.repository.js';
import { DemoDataService } from '../dist/src/demo/demo-data.service.js';

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const dbName = `sm_bench_export_${process.pid}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(adminUrl);
url.pathname = `/${dbName}`;
const dbUrl = url.toString();

const env = loadEnvironment({ DATABASE_URL: dbUrl });
const ds = await new DataSource(dataSourceOptions({ kind: 'server', url: dbUrl }, env)).initialize();
await runMigrations(ds, true);
const seedStarted = Date.now();
await new DemoDataService(new DemoDataRepository(ds), env).seed(
  { domains: 2000, hosts, days: 30, seed: 'bench' },
  () => undefined,
);
const seedSeconds = (Date.now() - seedStarted) / 1000;
const { token } = await new ApiKeysService(new ApiKeysRepository(ds.getRepository(ApiKeyEntity))).create(
  'bench',
  'bench',
  ['read'],
);

const server = spawn(process.execPath, ['dist/main.js'], {
  env: { PATH: process.env.PATH, DATABASE_URL: dbUrl, PORT: '0', WORKER: 'off', DOCS: 'off', LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  const onData = (d) => {
    out += d;
    const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
    if (m) resolve(m[1]);
  };
  server.stdout.on('data', onData);
  server.stderr.on('data', onData);
  server.on('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
});
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) * 1024;

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
const service = [];
const floor = [];
for (let i = 0; i < runs; i++) {
  service.push(await serviceRun());
  floor.push(await floorRun());
}
server.kill('SIGTERM');
await ds.destroy();
await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
await admin.end();

const rate = (r) => r.rows / r.seconds;
const result = {
  benchmark: 'export-txt',
  hosts,
  runs,
  seed_seconds: seedSeconds,
  service: {
    rows: service[0].rows,
    rows_per_second: median(service.map(rate)),
    rss_growth_mb: median(service.map((r) => r.rss_growth_mb)),
    peak_rss_mb: Math.max(...service.map((r) => r.peak_rss_mb)),
    all: service,
  },
  floor: { rows: floor[0].rows, rows_per_second: median(floor.map(rate)), all: floor },
  machine: { cpus: cpus().length, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
  commit: execSync('git rev-parse --short HEAD').toString().trim(),
  at: new Date().toISOString(),
};
result.ratio_to_floor = +(result.service.rows_per_second / result.floor.rows_per_second).toFixed(2);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/export.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `export of ${result.service.rows} hosts as txt (median of ${runs}): service ${Math.round(result.service.rows_per_second)} rows/s, ` +
    `psql \\copy ${Math.round(result.floor.rows_per_second)} rows/s, ratio ${result.ratio_to_floor}; ` +
    `server RSS +${result.service.rss_growth_mb.toFixed(1)} MB (peak ${result.service.peak_rss_mb.toFixed(0)} MB); seeded in ${seedSeconds.toFixed(1)} s`,
);
