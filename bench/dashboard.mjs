// The dashboard's pages at BENCH_HOSTS (1,000,000) hosts over BENCH_ROOTS (2,000) root domains (seed-demo, every
// host with what the service would know of it): each page's HTML, signed in, one request at a time
// (BENCH_PAGE_REQUESTS, 60, per page after 5 to warm up), parameters rotating over the data (small and large
// domains, filters, search terms that hit and miss, deep pages). The target is ≤ 300 ms p95 per page. Beside each
// page, the same run measures the API requests the page is built from (the floor: what the data costs), so the
// ratio says what rendering the page adds. Also the compressed script of every page (target ≤ 100 KB).
// Results: bench/results/dashboard-<hosts>.json.
// Usage: npm run build && node bench/dashboard.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_ROOTS)
import { spawnSync } from 'node:child_process';
import { get } from 'node:http';
import { brotliCompressSync } from 'node:zlib';
import { benchDomains, createBenchDatabase, fillHostIntel, startService, writeResult } from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const requests = Number(process.env.BENCH_PAGE_REQUESTS ?? 60);
const WARM_UP = 5;

const db = await createBenchDatabase('dashboard', { hosts });
await fillHostIntel(db.ds);
const cli = (args, input) => {
  const r = spawnSync(process.execPath, ['dist/cli.js', ...args], {
    env: { ...process.env, DATABASE_URL: db.dbUrl, LOG_LEVEL: 'error' },
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`cli ${args.join(' ')}: ${r.stderr}`);
};
cli(['users', 'create', '--email', 'bench@example.com', '--name', 'Bench'], 'a long bench password\n');
cli(['tokens', 'create', '--name', 'dashboard', '--user', 'bench@example.com', '--scopes', 'read,write']);
const service = await startService(db.dbUrl);

// Signed in as a browser is: the sign-in form's token and cookie, then the session cookie.
const form = await fetch(`${service.url}/account/sign-in`);
const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())[1];
const signInCookie = form.headers.getSetCookie()[0].split(';')[0];
const signedIn = await fetch(`${service.url}/account/sign-in`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: signInCookie, origin: service.url },
  body: new URLSearchParams({ _csrf: csrf, email: 'bench@example.com', password: 'a long bench password' }),
});
// The session's cookie (the one before it clears the cookie of the old path).
const session = signedIn.headers
  .getSetCookie()
  .find((c) => /^sm_session=[^;]/.test(c))
  .split(';')[0];

const api = async (path) =>
  (await fetch(`${service.url}/api/v1${path}`, { headers: { 'x-api-key': db.token } })).json();
const domains = await benchDomains(service.url, db.token);
const recent = (await api('/subdomains/new?limit=50')).data.map((h) => h.host);
const terms = [...new Set(recent.map((h) => h.split(/[.-]/)[0]))].slice(0, 5).concat(['zzqx-none', 'no-such-9']);

/** Each page, its rotating paths, and the API requests it is built from. */
const pages = {
  overview: {
    shows: 'data-platform="hackerone"',
    paths: ['/app'],
    api: [
      ['/platforms', '/stats/timeseries?bucket=day&hours=720', '/scans/status', '/ct/logs', '/subdomains/new?limit=20'],
    ],
  },
  programs: {
    shows: '<table class="programs">',
    paths: [
      '/app/programs',
      '/app/programs?sort=total_subdomains',
      '/app/programs?sort=last_scanned_at&offset=1000',
      '/app/programs?search=media&platform=hackerone',
    ],
    api: [
      ['/domains'],
      ['/domains?sort=total_subdomains'],
      ['/domains?sort=last_scanned_at&offset=1000'],
      ['/domains?search=media&platform=hackerone'],
    ],
  },
  domain: {
    shows: 'id="hosts-title"',
    paths: domains.flatMap((d) => [
      `/app/domains/${d}`,
      `/app/domains/${d}?filter=new`,
      `/app/domains/${d}?filter=active&search=api`,
    ]),
    api: domains.flatMap((d) => [
      [`/domains/${d}`, `/domains/${d}/subdomains`, `/scans?domain=${d}&limit=10`],
      [`/domains/${d}`, `/domains/${d}/subdomains?filter=new`, `/scans?domain=${d}&limit=10`],
      [`/domains/${d}`, `/domains/${d}/subdomains?filter=active&search=api`, `/scans?domain=${d}&limit=10`],
    ]),
  },
  search: {
    shows: 'id="results"',
    paths: terms.map((q) => `/app/search?q=${q}`),
    api: terms.map((q) => [`/subdomains/search?q=${q}`]),
  },
  host: {
    shows: '<h2>History</h2>',
    paths: recent.slice(0, 20).map((h) => `/app/hosts/${h}`),
    api: recent.slice(0, 20).map((h) => [`/hosts/${h}`]),
  },
};

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Milliseconds of each of `requests` rounds; a round runs `round(i)` (after WARM_UP rounds not counted). */
async function time(round) {
  const times = [];
  for (let i = 0; i < WARM_UP + requests; i++) {
    const started = performance.now();
    await round(i);
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  return times;
}

const results = {};
for (const [name, page] of Object.entries(pages)) {
  const pageTimes = await time(async (i) => {
    const res = await fetch(`${service.url}${page.paths[i % page.paths.length]}`, {
      headers: { cookie: session },
      redirect: 'manual', // a page that sends the browser to sign in is not the page
    });
    if (res.status !== 200) throw new Error(`${page.paths[i % page.paths.length]}: ${res.status}`);
    const text = await res.text();
    // The page with its data, not the notice an owner without a key sees.
    if (text.includes('you have no active key') || !text.includes(page.shows)) {
      throw new Error(`${page.paths[i % page.paths.length]}: the page does not show its data`);
    }
  });
  const apiTimes = await time(async (i) => {
    await Promise.all(
      page.api[i % page.api.length].map(async (path) => {
        const res = await fetch(`${service.url}/api/v1${path}`, { headers: { 'x-api-key': db.token } });
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        await res.text();
      }),
    );
  });
  results[name] = {
    p50_ms: +percentile(pageTimes, 0.5).toFixed(1),
    p95_ms: +percentile(pageTimes, 0.95).toFixed(1),
    api_floor_p50_ms: +percentile(apiTimes, 0.5).toFixed(1),
    api_floor_p95_ms: +percentile(apiTimes, 0.95).toFixed(1),
    p95_ratio_to_floor: +(percentile(pageTimes, 0.95) / percentile(apiTimes, 0.95)).toFixed(2),
  };
  console.log(name, results[name]);
}

// The script each page loads: raw, brotli at its highest quality (what a static build would ship), and the bytes
// the service sends to a browser asking for br (its own compression, at a lower quality for speed).
const sent = (path) =>
  new Promise((resolve, reject) =>
    get(`${service.url}${path}`, { headers: { 'accept-encoding': 'br' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
    }).on('error', reject),
  );
const scripts = {};
for (const path of ['/app/uplot.js', '/app/app.js']) {
  const res = await fetch(`${service.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
  const body = Buffer.from(await res.arrayBuffer());
  scripts[path] = { bytes: body.length, brotli_bytes: brotliCompressSync(body).length, sent_bytes: await sent(path) };
}
const scriptTotal = Object.values(scripts).reduce((sum, s) => sum + s.sent_bytes, 0);
console.log('scripts', scripts, 'total compressed', scriptTotal);

const full = writeResult(`dashboard-${hosts}`, {
  hosts,
  requests_per_page: requests,
  pages: results,
  scripts,
  script_total_sent_bytes: scriptTotal,
  targets: {
    page_p95_ms: 300,
    met: Object.values(results).every((r) => r.p95_ms <= 300),
    script_kb: 100,
    script_met: scriptTotal <= 100 * 1024,
  },
});
console.log(JSON.stringify(full.targets));
service.stop();
await db.drop();
