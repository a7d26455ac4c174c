// JSON read endpoints under load, the service against the Node floor, in one run on the same data and the
// same rotating parameters (cursors taken from real pages). autocannon, BENCH_CONNECTIONS (16) connections,
// BENCH_SECONDS (10) per endpoint and server, after a warm-up. Seeds BENCH_HOSTS (1,000,000) with seed-demo.
// Usage: npm run build && node bench/api.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_SECONDS)
import { execSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from '../dist/src/auth/api-key.entity.js';
import { ApiKeysRepository } from '../dist/src/auth/api-keys.repository.js';
import { ApiKeysService } from '../dist/src/auth/api-keys.service.js';
import { loadEnvironment } from '../dist/src/config/environment.js';
import { dataSourceOptions } from '../dist/src/database/data-source-options.js';
import { runMigrations } from '../dist/src/database/migrations.js';
import { DemoDataRepository } from '../dist/src/demo/demo-data.repository.js';
import { DemoDataService } from '../dist/src/demo/demo-data.service.js';
import { startFloor } from './floor-server.mjs';

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const dbName = `sm_bench_api_${process.pid}`;

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(adminUrl);
url.pathname = `/${dbName}`;
const dbUrl = url.toString();
const env = loadEnvironment({ DATABASE_URL: dbUrl });
const ds = await new DataSource(dataSourceOptions({ kind: 'server', url: dbUrl }, env)).initialize();
await runMigrations(ds, true);
await new DemoDataService(new DemoDataRepository(ds), env).seed(
  { domains: 2000, hosts, days: 30, seed: 'bench' },
  () => undefined,
);
const { token } = await new ApiKeysService(new ApiKeysRepository(ds.getRepository(ApiKeyEntity))).create(
  'bench',
  'bench',
  ['read'],
);

const service = spawn(process.execPath, ['dist/main.js'], {
  env: { PATH: process.env.PATH, DATABASE_URL: dbUrl, PORT: '0', WORKER: 'off', DOCS: 'off', LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const serviceUrl = await new Promise((resolve, reject) => {
  let out = '';
  const onData = (d) => {
    out += d;
    const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
    if (m) resolve(m[1]);
  };
  service.stdout.on('data', onData);
  service.stderr.on('data', onData);
  service.on('exit', (code) => reject(new Error(`service exited ${code}: ${out}`)));
});
const floor = await startFloor(dbUrl, env.DATABASE_POOL_SIZE);

// Rotating parameters from real pages: new-host cursors, and platform-feed cursors of every platform.
const get = async (path) => (await fetch(`${serviceUrl}${path}`, { headers: { 'x-api-key': token } })).json();
const feedPaths = ['/api/v1/subdomains/new?limit=500'];
for (let page = await get(feedPaths[0]); page.meta.next_cursor && feedPaths.length < 30;) {
  const { before_ts, before_id } = page.meta.next_cursor;
  const path = `/api/v1/subdomains/new?limit=500&before_ts=${encodeURIComponent(before_ts)}&before_id=${before_id}`;
  feedPaths.push(path);
  page = await get(path);
}
const platformPaths = [];
for (const slug of ['hackerone', 'bugcrowd', 'intigriti', 'yeswehack', 'self']) {
  let path = `/api/v1/platforms/${slug}/subdomains?limit=1000`;
  for (let i = 0; i < 8 && path; i++) {
    platformPaths.push(path);
    const page = await get(path);
    path = page.meta.next_cursor
      ? `/api/v1/platforms/${slug}/subdomains?limit=1000&cursor=${page.meta.next_cursor}`
      : null;
  }
}
const endpoints = [
  { name: 'GET /me', paths: ['/api/v1/me'] },
  { name: 'GET /subdomains/new (limit 500, cursors)', paths: feedPaths },
  { name: 'GET /platforms/{slug}/subdomains (limit 1000, cursors)', paths: platformPaths },
];

function load(base, paths, duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections,
        duration,
        headers: { 'x-api-key': token },
        requests: paths.map((path) => ({ method: 'GET', path })),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

const results = [];
for (const endpoint of endpoints) {
  await load(serviceUrl, endpoint.paths, 2);
  await load(floor.url, endpoint.paths, 2);
  const s = await load(serviceUrl, endpoint.paths, seconds);
  const f = await load(floor.url, endpoint.paths, seconds);
  const row = {
    endpoint: endpoint.name,
    service: { rps: s.requests.average, p50: s.latency.p50, p99: s.latency.p99, errors: s.errors + s.non2xx },
    floor: { rps: f.requests.average, p50: f.latency.p50, p99: f.latency.p99, errors: f.errors + f.non2xx },
  };
  row.ratio_rps = +(row.service.rps / row.floor.rps).toFixed(2);
  results.push(row);
  console.log(
    `${row.endpoint}: service ${Math.round(row.service.rps)} req/s p50 ${row.service.p50} ms p99 ${row.service.p99} ms | ` +
      `floor ${Math.round(row.floor.rps)} req/s p50 ${row.floor.p50} ms p99 ${row.floor.p99} ms | ratio ${row.ratio_rps} | errors ${row.service.errors}/${row.floor.errors}`,
  );
}

service.kill('SIGTERM');
await floor.close();
await ds.destroy();
await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
await admin.end();
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/api.json', import.meta.url),
  `${JSON.stringify(
    {
      benchmark: 'api',
      hosts,
      seconds,
      connections,
      results,
      machine: { cpus: cpus().length, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
      commit: execSync('git rev-parse --short HEAD').toString().trim(),
      at: new Date().toISOString(),
    },
    null,
    2,
  )}\n`,
);
