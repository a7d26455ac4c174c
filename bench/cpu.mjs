// CPU time a request: the built service against the independent floor (bench/independent-floor.mjs) on the same
// data. Where api.mjs's req/s puts an endpoint below the floor, this tells whether the service spends more per
// request, and where: in its own process or in the rest of the machine (PostgreSQL, the kernel's loopback).
//
// Each endpoint of api.mjs whose name BENCH_ONLY matches (a regular expression; `^GET /scans$` unless given) is
// asked a fixed number of times (BENCH_AMOUNT, 4,000) with BENCH_CONNECTIONS (16) connections over its rotation of
// paths, as api.mjs asks it, after a warm-up of a quarter as many; and each of its paths alone too for the endpoints
// whose name BENCH_EACH (a regular expression) matches.
// Per request:
//   server_us — user and system CPU of the server's process (/proc/<pid>/stat);
//   rest_us   — CPU of the rest of the machine (/proc/stat, all cores) less the server's and this process's own
//               (autocannon's); PostgreSQL's backends are most of it. The other server sits idle meanwhile.
// req/s is timed from the first request to the last answer. BENCH_ROUNDS (3) rounds, the order of the two servers
// reversed every other round; a figure is the median of its rounds.
// Results go to bench/results/cpu-<hosts>[-<roots>roots].json.
// Usage: npm run build && node bench/cpu.mjs   (BENCH_HOSTS, BENCH_ROOTS, BENCH_ONLY, BENCH_EACH, BENCH_AMOUNT,
// BENCH_ROUNDS, BENCH_CONNECTIONS)
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { endpointsOf } from './endpoints.mjs';
import {
  DEFAULT_ROOTS,
  createBenchDatabase,
  inAlternatingRounds,
  inOwnProcess,
  median,
  startService,
  writeResult,
} from './harness.mjs';

const hosts = Number(process.env.BENCH_HOSTS ?? 1_000_000);
const roots = Number(process.env.BENCH_ROOTS ?? DEFAULT_ROOTS);
const amount = Number(process.env.BENCH_AMOUNT ?? 4000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const only = new RegExp(process.env.BENCH_ONLY ?? '^GET /scans$');
const each = process.env.BENCH_EACH ? new RegExp(process.env.BENCH_EACH) : null;

/** Clock ticks a second of /proc's CPU figures (USER_HZ: 100 on every Linux Node runs on). */
const HZ = 100;
/** User and system CPU seconds of a process. */
function processSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command's name, which is in parentheses and may hold any character.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / HZ;
}
/**
 * CPU seconds the whole machine has been busy (every core): user, nice, system, irq and softirq. Not idle nor
 * iowait; not steal (another machine's work on a shared host) nor guest (already in user and nice).
 */
function machineSeconds() {
  const [, user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/);
  return [user, nice, system, irq, softirq].reduce((sum, ticks) => sum + Number(ticks), 0) / HZ;
}
const ownSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

const db = await createBenchDatabase('cpu', { hosts, roots });
const independent = await inOwnProcess('./independent-floor.mjs', 'startIndependentFloor', [
  db.dbUrl,
  db.env.DATABASE_POOL_SIZE,
]);
const service = await startService(db.dbUrl);
const endpoints = (await endpointsOf(service.url, db.token)).filter((e) => only.test(e.name));

/** `count` requests over `rotation`, each connection taking the paths in turn; CPU and time a request. */
function measure(server, rotation, count) {
  return new Promise((resolve, reject) => {
    const before = { server: processSeconds(server.pid), machine: machineSeconds(), own: ownSeconds() };
    const started = process.hrtime.bigint();
    let answered = 0;
    let last = started;
    const run = autocannon(
      {
        url: server.url,
        connections,
        amount: count,
        headers: { 'x-api-key': db.token },
        requests: rotation.map((path) => ({ method: 'GET', path })),
      },
      (err, result) => {
        if (err) return reject(err);
        const server_s = processSeconds(server.pid) - before.server;
        const rest_s = machineSeconds() - before.machine - server_s - (ownSeconds() - before.own);
        const us = (s) => Math.round((s * 1e6) / count);
        resolve({
          rps: Math.round(answered / (Number(last - started) / 1e9)),
          p99: result.latency.p99,
          server_us: us(server_s),
          rest_us: us(rest_s),
          total_us: us(server_s + rest_s),
          non_2xx: result.non2xx,
          errors: result.errors,
        });
      },
    );
    // autocannon reports on its one-second ticks; the last answer's own time is the run's end.
    run.on('response', () => {
      answered++;
      last = process.hrtime.bigint();
    });
  });
}

const servers = [
  ['service', service],
  ['independent_floor', independent],
];
const results = [];
const runs = endpoints.flatMap(({ name, paths }) => [
  ...(each?.test(name) && paths.length > 1 ? paths.map((p) => [p, [p]]) : []),
  [name, paths],
]);
for (const [name, rotation] of runs) {
  const measured = await inAlternatingRounds(servers, rounds, async (server) => {
    await measure(server, rotation, Math.ceil(amount / 4));
    return measure(server, rotation, amount);
  });
  const of = (label) =>
    Object.fromEntries(
      ['rps', 'p99', 'server_us', 'rest_us', 'total_us'].map((k) => [k, median(measured.map((m) => m[label][k]))]),
    );
  const row = {
    measured: name,
    service: of('service'),
    independent_floor: of('independent_floor'),
    rps_ratio: +median(measured.map((m) => m.service.rps / m.independent_floor.rps)).toFixed(2),
    cpu_ratio: +median(measured.map((m) => m.service.total_us / m.independent_floor.total_us)).toFixed(2),
    // Answers other than 2xx, and errors, of each server over the rounds: a figure of failures measures nothing.
    failures: Object.fromEntries(
      servers.map(([label]) => [label, measured.reduce((n, m) => n + m[label].non_2xx + m[label].errors, 0)]),
    ),
    rounds: measured,
  };
  results.push(row);
  const f = (x) => `${x.rps} req/s p99 ${x.p99} ms, CPU ${x.server_us} + ${x.rest_us} = ${x.total_us} µs`;
  console.log(
    `${name}: service ${f(row.service)} | independent ${f(row.independent_floor)} | req/s ×${row.rps_ratio}, ` +
      `CPU ×${row.cpu_ratio}, failures ${JSON.stringify(row.failures)}`,
  );
}

writeResult(`cpu-${hosts}${roots === DEFAULT_ROOTS ? '' : `-${roots}roots`}`, {
  benchmark: 'cpu',
  hosts,
  roots,
  only: only.source,
  each: each?.source ?? null,
  amount,
  connections,
  rounds,
  results,
});
service.stop();
await independent.close();
await db.drop();
