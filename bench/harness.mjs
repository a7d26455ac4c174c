// What every benchmark needs: a fresh database on the PostgreSQL server (migrated, optionally seeded, with a
// read key), the built service started on it, and the machine and commit to report with the figures.
import { execSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
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

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A new database named after the benchmark, migrated; seeded with seed-demo when `hosts` is given. */
export async function createBenchDatabase(label, { hosts } = {}) {
  const name = `sm_bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  const env = loadEnvironment({ DATABASE_URL: dbUrl });
  const ds = await new DataSource(dataSourceOptions({ kind: 'server', url: dbUrl }, env)).initialize();
  await runMigrations(ds, true);
  let seedSeconds = null;
  if (hosts) {
    const started = Date.now();
    await new DemoDataService(new DemoDataRepository(ds), env).seed(
      { domains: 2000, hosts, days: 30, seed: 'bench' },
      () => undefined,
    );
    seedSeconds = (Date.now() - started) / 1000;
  }
  const { token } = await new ApiKeysService(new ApiKeysRepository(ds.getRepository(ApiKeyEntity))).create(
    'bench',
    'bench',
    ['read'],
  );
  return {
    dbUrl,
    ds,
    env,
    token,
    seedSeconds,
    async drop() {
      await ds.destroy();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** The built service (node dist/main.js, WORKER=off) on the database; resolves once it listens. */
export async function startService(dbUrl) {
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { PATH: process.env.PATH, DATABASE_URL: dbUrl, PORT: '0', WORKER: 'off', DOCS: 'off', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`service exited ${code}: ${out}`)));
  });
  return {
    url,
    /** Resident memory of the service process, in bytes. */
    rss: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024,
    stop: () => child.kill('SIGTERM'),
  };
}

/** Writes bench/results/<name>.json with the machine and commit the figures come from. */
export function writeResult(name, result) {
  const full = {
    ...result,
    machine: { cpus: cpus().length, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    commit: execSync('git rev-parse --short HEAD').toString().trim(),
    at: new Date().toISOString(),
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(full, null, 2)}\n`);
  return full;
}
