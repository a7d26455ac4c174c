// The CT log follower end to end: a loopback RFC 6962 log in its own process (bench/ct-log-server.mjs) holding
// CT_BENCH_ENTRIES entries of the realistic mix (bench/ct-leaves.mjs), the built service following it with the
// worker on against CT_BENCH_ROOTS tracked roots. Measures, in one run:
//   - the parser alone (entries/s of entryNames over the same mix), and crypto.X509Certificate's for comparison;
//   - the floor: a bare client reading the same log (get-entries pages, JSON, base64) as fast as it can;
//   - the follower: entries/s from its first recorded page to the log's end (fetched, parsed, matched, recorded),
//     and its ratio to the floor; the service's RSS over the follow;
//   - latency: certificates appended one at a time to the caught-up log, each naming a new host, until the host is
//     in the database (and so in /subdomains/new and on the stream); CT_POLL_SECONDS is 1;
//   - with CT_BENCH_FOLLOW_SECONDS (720 in `npm run bench`: 2 minutes of warm-up, then 10): RSS over a long
//     follow of a log growing at CT_BENCH_RATE (1,500) entries a second, flat when its late trough is within 10 %
//     of its early one.
// Usage: npm run build && node bench/ct-follow.mjs
import { fork } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { entryNames } from '../dist/src/ct/ct-entry.js';
import { makeLeaves } from './ct-leaves.mjs';
import { followerOn, median, writeResult } from './harness.mjs';

const ENTRIES = Number(process.env.CT_BENCH_ENTRIES ?? 100_000);
const ROOTS = Number(process.env.CT_BENCH_ROOTS ?? 50_000);
const LATENCY_SAMPLES = Number(process.env.CT_BENCH_LATENCY_SAMPLES ?? 20);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parserAlone() {
  const leaves = makeLeaves(20_000, ROOTS);
  const rates = [];
  for (let round = 0; round < 5; round++) {
    const t = process.hrtime.bigint();
    let names = 0;
    for (const leaf of leaves) names += entryNames(leaf.subarray(2)).names.length;
    rates.push(leaves.length / (Number(process.hrtime.bigint() - t) / 1e9));
    if (names === 0) throw new Error('no names parsed');
  }
  // crypto.X509Certificate reads whole certificates only (not a precert's TBSCertificate): x509 entries alone.
  const certs = leaves.filter((l) => l.readUInt16BE(10) === 0).map((l) => l.subarray(15, 15 + l.readUIntBE(12, 3)));
  const t = process.hrtime.bigint();
  let sans = 0;
  for (const c of certs) sans += (new X509Certificate(c).subjectAltName ?? '').length > 0 ? 1 : 0;
  if (sans === 0) throw new Error('no subjectAltName read');
  const x509 = certs.length / (Number(process.hrtime.bigint() - t) / 1e9);
  return { entryNames_per_s: Math.round(median(rates)), x509certificate_per_s: Math.round(x509) };
}

async function floor(url, size) {
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < size) {
      const start = next;
      next = Math.min(size, next + 256);
      const res = await fetch(`${url}/ct/v1/get-entries?start=${start}&end=${next - 1}`);
      const { entries } = await res.json();
      for (const e of entries) Buffer.from(e.leaf_input, 'base64');
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return Math.round(size / ((Date.now() - started) / 1000));
}

const parser = parserAlone();
console.log('parser alone', parser);

const log = fork(new URL('./ct-log-server.mjs', import.meta.url), [], {
  env: { ...process.env, CT_BENCH_ENTRIES: String(ENTRIES), CT_BENCH_ROOTS: String(ROOTS) },
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
});
process.on('exit', () => log.kill()); // a failed run leaves no log server behind
const logUrl = await new Promise((resolve) => log.stdout.once('data', (d) => resolve(d.toString().trim())));
const floorRate = await floor(logUrl, ENTRIES);
console.log(`floor: a bare client reads ${floorRate} entries/s`);

const { db, service, position } = await followerOn('ct', logUrl, ROOTS);
let first = null;
const rss = [];
for (;;) {
  const at = await position();
  if (first === null && at > 0) first = { at, time: Date.now() };
  rss.push(service.rss());
  if (at >= ENTRIES) break;
  await sleep(100);
}
const seconds = (Date.now() - first.time) / 1000;
const followRate = Math.round((ENTRIES - first.at) / seconds);
const [{ hosts }] = await db.ds.query(`SELECT count(*)::int AS hosts FROM hosts`);
console.log(
  `follower: ${followRate} entries/s (${ENTRIES - first.at} entries in ${seconds.toFixed(1)} s), ${hosts} hosts`,
);

const latencies = [];
for (let i = 0; i < LATENCY_SAMPLES; i++) {
  const host = `latency${i}.root${i % ROOTS}.bench`;
  await new Promise((resolve) => {
    log.once('message', resolve);
    log.send({ append: 1, host });
  });
  const sent = Date.now();
  while ((await db.ds.query(`SELECT 1 FROM hosts WHERE host = $1`, [host])).length === 0) await sleep(20);
  latencies.push(Date.now() - sent);
  await sleep(300 + Math.random() * 700); // appended at any point of the poll cycle
}
latencies.sort((a, b) => a - b);

// Memory over a long follow (CT_BENCH_FOLLOW_SECONDS, 0 to skip): the log grows at CT_BENCH_RATE entries a second
// (all public logs together append about 1,500) and the service's RSS is sampled every 5 s.
const followSeconds = Number(process.env.CT_BENCH_FOLLOW_SECONDS ?? 0);
let soak = null;
if (followSeconds > 0) {
  const rate = Number(process.env.CT_BENCH_RATE ?? 1500);
  log.send({ grow: rate });
  const samples = [];
  const startedAt = Date.now();
  const startPosition = await position();
  while (Date.now() - startedAt < followSeconds * 1000) {
    await sleep(5000);
    samples.push({ s: Math.round((Date.now() - startedAt) / 1000), rss: service.rss() });
  }
  const lowOf = (from, to) => Math.min(...samples.filter((x) => x.s >= from && x.s < to).map((x) => x.rss)) / 2 ** 20;
  const [{ lag }] = await db.ds.query(`SELECT (tree_size - position)::int AS lag FROM ct_logs`);
  // RSS is a sawtooth (V8 collects the old generation now and then), so troughs are compared, as in the soak:
  // after WARM_UP seconds of warm-up, the lowest RSS of the last two minutes against the lowest of the two
  // minutes after the warm-up. Growth would lift the later trough; flat means within 10 %.
  const warmUp = Math.min(120, followSeconds / 4);
  const early = lowOf(warmUp, warmUp + 120);
  const late = lowOf(followSeconds - 120, followSeconds + 10);
  soak = {
    seconds: followSeconds,
    rate,
    entries_followed: (await position()) - startPosition,
    lag_at_end: lag,
    warm_up_seconds: warmUp,
    rss_mb_first_minute_low: Math.round(lowOf(0, 60)),
    rss_mb_low_after_warm_up: Math.round(early),
    rss_mb_low_last_two_minutes: Math.round(late),
    late_to_early: Number((late / early).toFixed(3)),
    flat: late <= 1.1 * early,
    rss_mb_peak: Math.round(Math.max(...samples.map((x) => x.rss)) / 2 ** 20),
    rss_mb_minute_lows: Array.from({ length: Math.ceil(followSeconds / 60) }, (_, m) =>
      Math.round(lowOf(m * 60, m * 60 + 60)),
    ),
  };
  console.log('long follow', soak);
}
const result = writeResult('ct-follow', {
  entries: ENTRIES,
  roots: ROOTS,
  parser,
  floor_entries_per_s: floorRate,
  follower_entries_per_s: followRate,
  ratio_to_floor: Number((followRate / floorRate).toFixed(2)),
  hosts_recorded: hosts,
  latency_ms: { p50: latencies[Math.floor(latencies.length / 2)], p99: latencies.at(-1), samples: latencies.length },
  soak,
  rss_mb: {
    first: Math.round(rss[0] / 2 ** 20),
    peak: Math.round(Math.max(...rss) / 2 ** 20),
    last: Math.round(rss.at(-1) / 2 ** 20),
  },
});
console.log(JSON.stringify(result, null, 2));
service.stop();
log.kill();
await db.drop();
