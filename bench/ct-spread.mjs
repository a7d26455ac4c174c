// The CT log follower when every entry matches a tracked root, and the matches spread over many roots or few: a
// loopback RFC 6962 log in its own process (bench/ct-log-server.mjs) of CT_BENCH_ENTRIES (10,000) entries, each
// naming hosts under one of `roots` tracked roots, followed by the built service with the worker on. Each round
// follows the log once with the matches over 2 roots and once over CT_BENCH_SPREAD_ROOTS (220), the order
// reversed every other round, each on a fresh database; entries/s from the first recorded page to the log's end.
// Target: the spread case ≥ 0.8× the rate of the two-root case (median of CT_BENCH_ROUNDS, 3, rounds).
// Usage: npm run build && node bench/ct-spread.mjs
import { fork } from 'node:child_process';
import { followerOn, median, writeResult } from './harness.mjs';

const ENTRIES = Number(process.env.CT_BENCH_ENTRIES ?? 10_000);
const SPREAD = Number(process.env.CT_BENCH_SPREAD_ROOTS ?? 220);
const ROUNDS = Number(process.env.CT_BENCH_ROUNDS ?? 3);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Follows a log whose every entry names hosts under one of `roots` roots; entries/s and hosts recorded. */
async function follow(roots, round) {
  const log = fork(new URL('./ct-log-server.mjs', import.meta.url), [], {
    env: { ...process.env, CT_BENCH_ENTRIES: String(ENTRIES), CT_BENCH_ROOTS: String(roots), CT_BENCH_MATCHING: '1' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const logUrl = await new Promise((resolve) => log.stdout.once('data', (d) => resolve(d.toString().trim())));
  const { db, service, position } = await followerOn(`ct_spread_${roots}_${round}`, logUrl, roots);
  try {
    let first = null;
    for (;;) {
      const at = await position();
      if (first === null && at > 0) first = { at, time: Date.now() };
      if (at >= ENTRIES) break;
      await sleep(50);
    }
    const seconds = (Date.now() - first.time) / 1000;
    const [{ hosts, domains }] = await db.ds.query(
      `SELECT count(*)::int AS hosts, count(DISTINCT domain_id)::int AS domains FROM hosts`,
    );
    return { entries_per_s: Math.round((ENTRIES - first.at) / seconds), hosts, domains };
  } finally {
    service.stop();
    log.kill();
    await db.drop();
  }
}

const runs = { few: [], many: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['few', 'many'] : ['many', 'few'];
  for (const side of order) {
    const result = await follow(side === 'few' ? 2 : SPREAD, round);
    runs[side].push(result);
    console.log(`round ${round + 1}: ${side === 'few' ? 2 : SPREAD} roots`, result);
  }
}
const rate = (side) => median(runs[side].map((r) => r.entries_per_s));
const result = writeResult('ct-spread', {
  benchmark: 'ct-spread',
  entries: ENTRIES,
  rounds: ROUNDS,
  few: { roots: 2, entries_per_s: rate('few'), runs: runs.few },
  many: { roots: SPREAD, entries_per_s: rate('many'), runs: runs.many },
  many_over_few: Number((rate('many') / rate('few')).toFixed(3)),
});
console.log(JSON.stringify(result, null, 2));
