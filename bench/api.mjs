// JSON read endpoints under load, the service against the Node floor, in one run on the same data and the
// same rotating parameters (cursors taken from real pages). autocannon, BENCH_CONNECTIONS (16) connections,
// BENCH_SECONDS (10) per endpoint and server, after a warm-up. Seeds BENCH_HOSTS (1,000,000) with seed-demo.
// Usage: npm run build && node bench/api.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_SECONDS)
import autocannon from 'autocannon';
import { startFloor } from './floor-server.mjs';
import { createBenchDatabase, startService, writeResult } from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

const db = await createBenchDatabase('api', { hosts });
const { dbUrl, env, token } = db;
const service = await startService(dbUrl);
const serviceUrl = service.url;
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

service.stop();
await floor.close();
await db.drop();
writeResult('api', { benchmark: 'api', hosts, seconds, connections, results });
