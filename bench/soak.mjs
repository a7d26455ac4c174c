// The soak: BENCH_SOAK_SECONDS (90) of mixed read load at BENCH_SOAK_CONNECTIONS (64) connections on the built
// service with its worker on, while scans run the whole time (a loopback crt.sh-format server hands each scan
// BENCH_SOAK_NAMES (20,000) names, and a writer keeps queueing rescans). Passes when no request fails and the
// service's memory does not grow: the lowest RSS of the last 20 s is within 10% of the lowest of the first 20 s.
// RSS is a sawtooth (V8 collects the old generation every minute or so under this load), so its troughs, not
// its medians, show a leak: a window's median depends on where the window falls in the cycle.
// Usage: npm run build && node bench/soak.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_SOAK_*)
import { createServer } from 'node:http';
import { createBenchDatabase, loadTest, startService, writeResult } from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 90);
const connections = Number(process.env.BENCH_SOAK_CONNECTIONS ?? 64);
const namesPerScan = Number(process.env.BENCH_SOAK_NAMES ?? 20_000);
const warmupSeconds = Number(process.env.BENCH_SOAK_WARMUP_SECONDS ?? 20);

const SCANNED = ['soak-a.test', 'soak-b.test', 'soak-c.test'];

// crt.sh's JSON format; each answer holds the names of earlier answers and new ones, as a growing target does.
let answers = 0;
const crt = createServer((req, res) => {
  const domain = /%25\.([^&]+)/.exec(req.url)?.[1] ?? 'unknown.test';
  const round = ++answers;
  const names = Array.from({ length: namesPerScan }, (_, i) => ({ name_value: `n${i}-r${i % round}.${domain}` }));
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(names));
});
await new Promise((resolve) => crt.listen(0, '127.0.0.1', resolve));
const crtUrl = `http://127.0.0.1:${crt.address().port}`;

const db = await createBenchDatabase('soak', { hosts });
const { dbUrl, ds, token, writeToken } = db;
for (const domain of SCANNED) {
  await ds.query(`INSERT INTO domains (domain, platform_slug, enabled) VALUES ($1, 'self', false)`, [domain]);
}
const service = await startService(dbUrl, {
  WORKER: 'on',
  WORKER_CRON: '* * * * * *',
  SCAN_SOURCES: 'crtsh',
  CRTSH_URL: crtUrl,
  SCAN_CONCURRENCY: '2',
});
const base = service.url;
const api = async (path, init = {}, key = token) =>
  (await fetch(`${base}/api/v1${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json' } }))
    .json()
    .catch(() => ({}));

// The mixed read load: every JSON read endpoint, with rotating parameters and real cursors.
const feed = await api('/subdomains/new?limit=500');
const cursor = feed.meta?.next_cursor;
const platformPage = await api('/platforms/hackerone/subdomains?limit=1000');
const domains = (await api('/domains?limit=50')).data.map((d) => d.domain);
const paths = [
  '/api/v1/me',
  '/api/v1/subdomains/new?limit=500',
  cursor &&
    `/api/v1/subdomains/new?limit=500&before_ts=${encodeURIComponent(cursor.before_ts)}&before_id=${cursor.before_id}`,
  '/api/v1/platforms/hackerone/subdomains?limit=1000',
  platformPage.meta?.next_cursor &&
    `/api/v1/platforms/hackerone/subdomains?limit=1000&cursor=${platformPage.meta.next_cursor}`,
  '/api/v1/platforms/bugcrowd/subdomains/new?hours=168&limit=200',
  '/api/v1/platforms',
  '/api/v1/platforms/intigriti',
  '/api/v1/platforms/yeswehack/domains?limit=200',
  '/api/v1/domains?limit=100&offset=500',
  '/api/v1/subdomains/search?q=api&limit=100',
  '/api/v1/subdomains/search?q=zzqx-miss&limit=100',
  '/api/v1/stats',
  '/api/v1/stats/top-domains?hours=168',
  '/api/v1/stats/timeseries?hours=48',
  '/api/v1/scans?limit=50',
  '/api/v1/scans/status',
  ...domains
    .slice(0, 20)
    .flatMap((d) => [
      `/api/v1/domains/${d}`,
      `/api/v1/domains/${d}/subdomains?limit=100`,
      `/api/v1/domains/${d}/subdomains/new?hours=168`,
    ]),
].filter(Boolean);

// Scans the whole time: queue a rescan of each soak domain whenever it is not already running.
let queued = 0;
let writerErrors = 0;
const writer = setInterval(async () => {
  for (const domain of SCANNED) {
    const res = await fetch(`${base}/api/v1/scans`, {
      method: 'POST',
      headers: { 'x-api-key': writeToken, 'content-type': 'application/json' },
      body: JSON.stringify({ domain }),
    }).catch(() => null);
    if (res?.status === 202) queued++;
    else {
      writerErrors++;
      console.error(`POST /scans ${domain}: ${res ? `${res.status} ${await res.text()}` : 'no answer'}`);
    }
  }
}, 3000);

const run = (duration) => loadTest({ base, paths, duration, connections, token });

// A warm-up under the same load (JIT, pools, V8's heap sizing), then the soak itself, sampling the service's
// memory twice a second.
const warmup = await run(warmupSeconds);
const samples = [];
const started = Date.now();
const sampler = setInterval(() => samples.push({ t: (Date.now() - started) / 1000, rss: service.rss() }), 500);
const load = await run(seconds);
clearInterval(sampler);
clearInterval(writer);

const soakScans = (await Promise.all(SCANNED.map((d) => api(`/scans?domain=${d}&limit=500`)))).flatMap(
  (page) => page.data ?? [],
);
const finished = soakScans.filter((s) => s.status === 'success').length;
const failed = soakScans.filter((s) => s.status === 'error').length;
service.stop();
crt.close();
await db.drop();

const mb = (bytes) => +(bytes / 2 ** 20).toFixed(1);
const first = Math.min(...samples.filter((s) => s.t <= 20).map((s) => s.rss));
const last = Math.min(...samples.filter((s) => s.t >= seconds - 20).map((s) => s.rss));
const result = {
  benchmark: 'soak',
  hosts,
  seconds,
  connections,
  endpoints: paths.length,
  requests: load.requests.total,
  rps: load.requests.average,
  p50: load.latency.p50,
  p99: load.latency.p99,
  warmup_seconds: warmupSeconds,
  warmup_errors: warmup.errors + warmup.timeouts + warmup.non2xx,
  errors: load.errors,
  timeouts: load.timeouts,
  non_2xx: load.non2xx,
  scans: { queued, finished, failed, writer_errors: writerErrors, names_per_scan: namesPerScan },
  rss_mb: { first_20s_low: mb(first), last_20s_low: mb(last), peak: mb(Math.max(...samples.map((s) => s.rss))) },
  memory_growth_ratio: +(last / first).toFixed(3),
  rss_mb_every_2s: samples.filter((_, i) => i % 4 === 0).map((s) => mb(s.rss)),
};
result.pass =
  result.warmup_errors === 0 &&
  result.errors === 0 &&
  result.timeouts === 0 &&
  result.non_2xx === 0 &&
  failed === 0 &&
  result.memory_growth_ratio <= 1.1;
writeResult('soak', result);
console.log(
  `soak ${seconds} s at ${connections} connections over ${paths.length} paths: ${result.requests} requests ` +
    `(${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms), errors ${result.errors}, ` +
    `timeouts ${result.timeouts}, non-2xx ${result.non_2xx}; scans ${finished} finished, ${failed} failed; ` +
    `RSS low ${result.rss_mb.first_20s_low} MB (first 20 s) → ${result.rss_mb.last_20s_low} MB (last 20 s), ` +
    `peak ${result.rss_mb.peak} MB: ${result.pass ? 'PASS' : 'FAIL'}`,
);
