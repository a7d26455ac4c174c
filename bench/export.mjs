// The export of every host against its floor, on the PostgreSQL server, in one run on the same rows, for txt, CSV
// and JSON, plain and gzip-compressed:
//   service — GET /api/v1/export?format=txt|csv|json from the built service (node dist/main.js, WORKER=off), with
//             Accept-Encoding: gzip for the compressed cases (bytes counted as they come, not decoded);
//   floor   — psql -c "\copy (SELECT … the same columns, same order …) TO STDOUT" [| gzip -1], in PostgreSQL's own
//             text form (a timestamp as the server writes it, tab-separated): the rows/s PostgreSQL itself gives; for
//             JSON one object a line, the service's own bytes (row_to_json of the same keys), the array's brackets
//             and commas left to the service.
// Reports rows/s (median of BENCH_RUNS rounds, the service first in one round and the floor first in the next, so
// that the machine's drift falls on both alike), the ratio, and the server's RSS growth during the export.
// Usage: npm run build && node bench/export.mjs   (BENCH_DATABASE_URL, BENCH_HOSTS, BENCH_ROOTS, BENCH_RUNS)
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { DEFAULT_ROOTS, createBenchDatabase, median, startService, writeResult } from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 5);

const roots = Number(process.env.BENCH_ROOTS ?? DEFAULT_ROOTS);
const db = await createBenchDatabase('export', { hosts, roots });
const { dbUrl, token, seedSeconds } = db;
const service = await startService(dbUrl);
const baseUrl = service.url;
const rss = service.rss;

/** The export's columns as psql's floor selects them, for each format, with COPY's own options. */
const FLOOR_SQL = {
  txt: {
    sql: `SELECT h.host FROM domains d JOIN hosts h ON h.domain_id = d.id ORDER BY d.domain, h.host`,
    options: '',
  },
  csv: {
    sql: `SELECT h.host, d.domain, d.platform_slug, h.first_seen_at, h.is_active
            FROM domains d JOIN hosts h ON h.domain_id = d.id ORDER BY d.domain, h.host`,
    options: '',
  },
  json: {
    sql: `SELECT row_to_json(r) FROM (
            SELECT h.host, d.domain, d.platform_slug AS platform,
                   to_char(h.first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS first_seen_at,
                   h.is_active, host_sources(h.sources) AS sources
              FROM domains d JOIN hosts h ON h.domain_id = d.id ORDER BY d.domain, h.host) r`,
    options: '',
  },
};

/**
 * Downloads one export over a fresh connection and counts its bytes (and, uncompressed, its lines) as they come:
 * a compressed body is not decoded, so the client's CPU does not count against the service.
 */
function serviceRun(format, encoding) {
  return new Promise((resolve, reject) => {
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 25);
    const t0 = process.hrtime.bigint();
    const headers = { 'x-api-key': token, ...(encoding ? { 'accept-encoding': encoding } : {}) };
    const req = request(`${baseUrl}/api/v1/export?format=${format}`, { headers, agent: false }, (res) => {
      let lines = 0;
      let bytes = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
        if (!encoding) for (const byte of chunk) if (byte === 10) lines++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        resolve({
          rows: encoding ? null : lines,
          bytes,
          encoding: res.headers['content-encoding'] ?? null,
          seconds: Number(process.hrtime.bigint() - t0) / 1e9,
          rss_growth_mb: (peak - before) / 2 ** 20,
          peak_rss_mb: peak / 2 ** 20,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** psql \copy of the same rows in the same order, piped through gzip -1 when gzip is asked for. */
function floorRun(format, gzip) {
  const { sql, options } = FLOOR_SQL[format];
  // Inside the shell's double quotes, the statement's own double quotes (to_char's "T") and $ ` \ are escaped.
  const statement = sql.replace(/\s+/g, ' ').replace(/["$`\\]/g, '\\$&');
  const copy = `psql '${dbUrl}' -qAt -c "\\copy (${statement}) TO STDOUT${options}"`;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const shell = spawn('sh', ['-c', gzip ? `${copy} | gzip -1` : copy], { stdio: ['ignore', 'pipe', 'inherit'] });
    let lines = 0;
    let bytes = 0;
    shell.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      if (!gzip) for (const byte of chunk) if (byte === 10) lines++;
    });
    shell.on('error', reject);
    shell.on('close', () =>
      resolve({ rows: gzip ? null : lines, bytes, seconds: Number(process.hrtime.bigint() - t0) / 1e9 }),
    );
  });
}

/** Each case: the service's export and its floor, alternated, median of `runs`. */
const CASES = [
  { name: 'txt', format: 'txt', encoding: null },
  { name: 'csv', format: 'csv', encoding: null },
  { name: 'txt, gzip', format: 'txt', encoding: 'gzip' },
  { name: 'csv, gzip', format: 'csv', encoding: 'gzip' },
  { name: 'json', format: 'json', encoding: null },
  { name: 'json, gzip', format: 'json', encoding: 'gzip' },
];

await serviceRun('txt', null); // warm-up: caches and the connection pool
const cases = [];
for (const c of CASES) {
  const serviceRuns = [];
  const floor = [];
  for (let i = 0; i < runs; i++) {
    const service = () => serviceRun(c.format, c.encoding).then((r) => serviceRuns.push(r));
    const psql = () => floorRun(c.format, c.encoding === 'gzip').then((r) => floor.push(r));
    for (const run of i % 2 === 0 ? [service, psql] : [psql, service]) await run();
  }
  cases.push({ ...c, serviceRuns, floor });
}
service.stop();
await db.drop();

const rate = (rows) => (r) => rows / r.seconds;
const result = { benchmark: 'export', hosts, roots, runs, seed_seconds: seedSeconds, cases: [] };
for (const c of cases) {
  // Every case exports every host: the plain txt export's lines count them (a JSON body has its brackets' lines
  // too, and a compressed one is not decoded).
  const hostsExported = cases[0].serviceRuns[0].rows;
  const one = {
    name: c.name,
    encoding: c.serviceRuns[0].encoding,
    service: {
      rows: hostsExported,
      bytes: c.serviceRuns[0].bytes,
      rows_per_second: median(c.serviceRuns.map(rate(hostsExported))),
      rss_growth_mb: median(c.serviceRuns.map((r) => r.rss_growth_mb)),
      peak_rss_mb: Math.max(...c.serviceRuns.map((r) => r.peak_rss_mb)),
      all: c.serviceRuns,
    },
    floor: { bytes: c.floor[0].bytes, rows_per_second: median(c.floor.map(rate(hostsExported))), all: c.floor },
  };
  one.ratio_to_floor = +(one.service.rows_per_second / one.floor.rows_per_second).toFixed(2);
  result.cases.push(one);
}
writeResult(`export-${hosts}`, result);
for (const c of result.cases) {
  console.log(
    `export of ${c.service.rows} hosts as ${c.name} (median of ${runs}): service ${Math.round(c.service.rows_per_second)} rows/s` +
      ` (${(c.service.bytes / 2 ** 20).toFixed(1)} MB, ${c.encoding ?? 'identity'}), psql \\copy ${Math.round(c.floor.rows_per_second)} rows/s` +
      ` (${(c.floor.bytes / 2 ** 20).toFixed(1)} MB), ratio ${c.ratio_to_floor}; server RSS +${c.service.rss_growth_mb.toFixed(1)} MB` +
      ` (peak ${c.service.peak_rss_mb.toFixed(0)} MB)`,
  );
}
if (seedSeconds !== null) console.log(`seeded in ${seedSeconds.toFixed(1)} s`);
