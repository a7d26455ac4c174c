// seed-demo of 1M hosts over 5,000 roots on the server (#40: under 60 s), run as an operator runs it: the built CLI
// (`node dist/cli.js seed-demo`) on a fresh, migrated database, BENCH_SEED_RUNS times (3), the median of the wall
// times. Each run's database is dropped after it, with its size a host noted first.
//
// Run: `npm run build && node bench/seed-demo.mjs` (part of `npm run bench`). BENCH_SEED_HOSTS (1,000,000),
// BENCH_SEED_ROOTS (5,000).
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { createBenchDatabase, median, writeResult } from './harness.mjs';

const HOSTS = Number(process.env.BENCH_SEED_HOSTS ?? 1_000_000);
const ROOTS = Number(process.env.BENCH_SEED_ROOTS ?? 5000);
const RUNS = Number(process.env.BENCH_SEED_RUNS ?? 3);

const runs = [];
for (let i = 0; i < RUNS; i++) {
  const db = await createBenchDatabase(`seed${i}`);
  // The bench keys are the only rows: seed-demo wants an empty database of domains.
  const t0 = performance.now();
  execFileSync(
    process.execPath,
    ['dist/cli.js', 'seed-demo', '--domains', String(ROOTS), '--hosts', String(HOSTS), '--seed', `bench-${i}`],
    { env: { ...process.env, DATABASE_URL: db.dbUrl, LOG_LEVEL: 'error' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const seconds = (performance.now() - t0) / 1000;
  const client = new pg.Client({ connectionString: db.dbUrl });
  await client.connect();
  const { rows } = await client.query(
    `SELECT pg_database_size(current_database())::bigint AS bytes, (SELECT count(*) FROM hosts)::int AS hosts`,
  );
  await client.end();
  await db.drop();
  runs.push({
    seconds: +seconds.toFixed(1),
    hosts: rows[0].hosts,
    database_bytes_a_host: Math.round(rows[0].bytes / rows[0].hosts),
  });
  console.log(`run ${i + 1}: ${seconds.toFixed(1)} s, ${rows[0].hosts} hosts`);
}
const result = writeResult('seed-demo', {
  hosts: HOSTS,
  roots: ROOTS,
  runs,
  median_seconds: +median(runs.map((r) => r.seconds)).toFixed(1),
  target_seconds: 60,
});
console.log(JSON.stringify(result, null, 2));
