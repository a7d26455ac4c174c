// What every benchmark needs: a fresh database on the PostgreSQL server (migrated, optionally seeded, with a
// read key), the built service started on it, and the machine and commit to report with the figures.
import { execSync, fork, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from '../dist/src/auth/entities/api-key.entity.js';
import { ApiKeysRepository } from '../dist/src/auth/api-keys.repository.js';
import { ApiKeysService } from '../dist/src/auth/api-keys.service.js';
import { loadEnvironment } from '../dist/src/config/environment.js';
import { ENTITIES } from '../dist/src/app/entities.js';
import { dataSourceOptions } from '../dist/src/database/data-source-options.js';
import { runMigrations } from '../dist/src/database/migrations.js';
import { DemoDataRepository } from '../dist/src/demo/demo-data.repository.js';
import { DemoDataService } from '../dist/src/demo/demo-data.service.js';

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The middle value; for an even count, the mean of the two middle ones. */
export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

/**
 * `rounds` rounds of `measure(server)` on each `[label, server]` of `servers` in turn, the order reversed every
 * other round so that the machine's drift falls on every side alike: each round's figures by label.
 */
export async function inAlternatingRounds(servers, rounds, measure) {
  const measured = [];
  for (let round = 0; round < rounds; round++) {
    const figures = {};
    for (const [label, server] of round % 2 === 0 ? servers : [...servers].reverse())
      figures[label] = await measure(server);
    measured.push(figures);
  }
  return measured;
}

/**
 * The commit a checkout (or a worktree of another commit) has out, with `+changes` when its tracked files other
 * than bench/results differ from it (a build of uncommitted work), or null when it is no git checkout.
 */
export const commitOf = (dir = '.') => {
  try {
    const stdio = ['ignore', 'pipe', 'ignore'];
    const git = (command) =>
      execSync(command, { cwd: resolve(dir), stdio })
        .toString()
        .trim();
    const head = git('git rev-parse --short HEAD');
    // Results the benchmarks write are no change of the code measured.
    return git(`git status --porcelain --untracked-files=no -- . ':!bench/results'`) ? `${head}+changes` : head;
  } catch {
    return null;
  }
};
const urlOf = (name) => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();

async function openMigrated(dbUrl) {
  const env = loadEnvironment({ DATABASE_URL: dbUrl });
  const ds = await new DataSource(dataSourceOptions({ kind: 'server', url: dbUrl }, env, ENTITIES)).initialize();
  await runMigrations(ds, true);
  return { env, ds };
}

/**
 * What the seeded data depends on: the seeding code, as built. Migrations added later need no new seed: they
 * run on each copy (openMigrated), as they would on an operator's database.
 */
function seedVersion() {
  const hash = createHash('sha256');
  for (const dir of ['dist/src/demo']) {
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .sort()) {
      hash.update(file).update(readFileSync(`${dir}/${file}`));
    }
  }
  return hash.digest('hex').slice(0, 10);
}

/** Root domains of the seed unless a benchmark asks for another number (`roots`, or BENCH_ROOTS). */
export const DEFAULT_ROOTS = 2000;

/**
 * The seeded data of `hosts` hosts over `roots` root domains, as a template database: seed-demo runs once per
 * size and version of the seeding code, and every benchmark (of this run and later ones) copies it with
 * CREATE DATABASE … TEMPLATE, which takes seconds where seeding 10M hosts takes minutes. Older seeds of the same
 * size are dropped. The default 2,000 roots keep the name they always had (sm_bench_seed_<hosts>_<version>);
 * another number of roots is in the name (sm_bench_seed_<hosts>_<roots>roots_<version>).
 */
async function seedTemplate(admin, hosts, roots = DEFAULT_ROOTS) {
  const prefix = `sm_bench_seed_${hosts}${roots === DEFAULT_ROOTS ? '' : `_${roots}roots`}`;
  const name = `${prefix}_${seedVersion()}`;
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (rowCount > 0) return { name, seedSeconds: null };
  // Only the seeds of this size and number of roots: sm_bench_seed_1000000_<version> is not the 50,000-root seed.
  const own = new RegExp(`^${prefix}_[0-9a-f]+$`);
  const stale = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'sm\\_bench\\_seed\\_%'`);
  for (const { datname } of stale.rows.filter((r) => own.test(r.datname))) {
    await admin.query(`DROP DATABASE ${datname} WITH (FORCE)`);
  }
  // Seeded under a temporary name and renamed when complete, so a seed cut short is never taken for one.
  const partial = `${name}_partial`;
  await admin.query(`DROP DATABASE IF EXISTS ${partial} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${partial}`);
  const { env, ds } = await openMigrated(urlOf(partial));
  const started = Date.now();
  await new DemoDataService(new DemoDataRepository(ds), env).seed(
    { domains: roots, hosts, days: 30, seed: 'bench' },
    () => undefined,
  );
  const seedSeconds = (Date.now() - started) / 1000;
  await ds.destroy();
  await admin.query(`ALTER DATABASE ${partial} RENAME TO ${name}`);
  return { name, seedSeconds };
}

/**
 * A new database named after the benchmark, migrated, with a read key (and a read,write key); a copy of the
 * seed-demo data of `hosts` hosts over `roots` root domains (default BENCH_ROOTS, else 2,000) when given.
 */
export async function createBenchDatabase(
  label,
  { hosts, roots = Number(process.env.BENCH_ROOTS ?? DEFAULT_ROOTS) } = {},
) {
  const name = `sm_bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  let seedSeconds = null;
  if (hosts) {
    const seed = await seedTemplate(admin, hosts, roots);
    seedSeconds = seed.seedSeconds;
    // FILE_COPY (PostgreSQL 15 on) copies the files between two checkpoints; the default there (WAL_LOG) writes
    // the whole seed to the WAL, and the checkpoints flushing it would fall inside the measurements that follow.
    const { rows } = await admin.query(`SELECT current_setting('server_version_num')::int >= 150000 AS strategy`);
    const strategy = rows[0].strategy ? 'STRATEGY FILE_COPY' : '';
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${seed.name} ${strategy}`);
  } else {
    await admin.query(`CREATE DATABASE ${name}`);
  }
  const dbUrl = urlOf(name);
  const { env, ds } = await openMigrated(dbUrl);
  const keys = new ApiKeysService(new ApiKeysRepository(ds.getRepository(ApiKeyEntity)));
  const { token } = await keys.create('bench', 'bench', ['read']);
  const { token: writeToken } = await keys.create('bench-write', 'bench', ['read', 'write']);
  return {
    dbUrl,
    ds,
    env,
    token,
    writeToken,
    /** Seconds seed-demo took in this run; null when the seed of this commit already existed. */
    seedSeconds,
    async drop() {
      await ds.destroy();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * What the service would know of every host of the database, a realistic mix: 70 % resolve (one or two A, a tenth
 * with an AAAA too), 20 % do not, 10 % are aliases (a chain of one or two names), one in 300 of them dangling onto a
 * service that lets others claim the name (a takeover candidate); 60 % of the resolving ones answer HTTPS with a
 * status, a title, a Server header and a certificate (a sixth of them after a redirect), the others nothing. With
 * `hidden`, half a percent are wildcard echoes (a fortieth of the fifth that seed-demo has found by guesses alone,
 * as only such a host can be one: guessedOnly in src/hosts/model/host-sources.ts) and one percent out of scope,
 * which the feeds hide (about 5,000 and 10,000 of 1M): a tenth of the hosts of every tenth root, which gets an exclusion rule (naming none of its hosts: the
 * flags stand for what it excluded), as only a root with rules has hosts out of scope. Without, no root has rules. Empty sets, an unmoved final URL and unset flags are NULL, as the service keeps them. It replaces what
 * seed-demo wrote, whose rows lie in the order of the hosts' ids: these are written in the order the hosts were
 * first seen, as the service writes them (a host is resolved as it is found), where the seed's hosts lie in random
 * order of first_seen_at, which no service's table would.
 */
export async function fillHostIntel(ds, { hidden = false } = {}) {
  // One statement over every host: longer than the service's QUERY_TIMEOUT_MS on a cold cache.
  await ds.transaction(async (m) => {
    await m.query('SET LOCAL statement_timeout = 0');
    await m.query('TRUNCATE host_intel');
    await m.query(`
    INSERT INTO host_intel (host_id, dns_status, a, aaaa, cname, dns_takeover, resolved_at, listening, scheme, port,
                            http_status, final_url, title, server, content_length, tls_subject, tls_issuer,
                            tls_not_after, probed_at, wildcard, out_of_scope)
    SELECT id, CASE WHEN resolves THEN 'resolved' ELSE 'nxdomain' END,
           CASE WHEN resolves THEN
             CASE WHEN id % 3 = 0 THEN ARRAY['203.0.113.' || (id % 250), '198.51.100.' || (id % 250)]
                  ELSE ARRAY['203.0.113.' || (id % 250)] END
           END,
           CASE WHEN id % 10 = 1 THEN ARRAY['2001:db8::' || to_hex(id % 65535)] END,
           CASE WHEN id % 10 = 9 THEN
             CASE WHEN id % 2 = 0 THEN ARRAY['h' || id || '.edge.cdn-provider.net', 'edge-' || (id % 97) || '.cdn-provider.net']
                  ELSE ARRAY['shop-' || id || '.azurewebsites.net'] END
           END,
           CASE WHEN id % 300 = 299 THEN jsonb_build_object('service', 'Microsoft Azure', 'status', 'Vulnerable',
                                                            'evidence', 'CNAME', 'vulnerable', true) END,
           now(),
           CASE WHEN resolves THEN id % 10 < 6 END,
           CASE WHEN listens THEN 'https' END, CASE WHEN listens THEN 443 END,
           CASE WHEN listens THEN CASE WHEN id % 5 = 0 THEN 403 ELSE 200 END END,
           CASE WHEN listens AND id % 10 = 0 THEN 'https://h' || id || '.bench.test/login' END,
           CASE WHEN listens THEN 'Welcome to the example portal' END, CASE WHEN listens THEN 'nginx' END,
           CASE WHEN listens THEN 4096 + id % 1000 END, CASE WHEN listens THEN 'CN=h' || id || '.bench.test' END,
           CASE WHEN listens THEN 'C=US, O=Let''s Encrypt, CN=R11' END,
           CASE WHEN listens THEN now() + interval '60 days' END,
           CASE WHEN resolves THEN now() END,
           ${hidden ? 'nullif(guessed AND id % 40 = 3, false), nullif(domain_id % 10 = 0 AND id % 10 = 7, false)' : 'NULL, NULL'}
      FROM (SELECT id, domain_id, (sources | 20) = 20 AS guessed, id % 10 < 7 OR id % 10 = 9 AS resolves,
                   (id % 10 < 7 OR id % 10 = 9) AND id % 10 < 6 AS listens, first_seen_at FROM hosts) x
     ORDER BY first_seen_at, id`);
    // Only a root with an exclusion rule has hosts out of scope (ruledRoot in src/hosts/model/knowledge-filter.ts).
    await m.query(`DELETE FROM scope_rules`);
    if (hidden) {
      await m.query(`INSERT INTO scope_rules (domain_id, kind, pattern, regex)
                     SELECT id, 'host', 'excluded.' || domain, '^excluded\\.' || replace(domain, '.', '\\.') || '$'
                       FROM domains WHERE id % 10 = 0`);
    }
  });
  // As seed-demo leaves it: vacuumed (the visibility map set, so index-only reads skip the heap) and analysed.
  await ds.query('VACUUM ANALYZE host_intel');
}

/** A statement run once on `client`: its rows, and its time in ms from the call to the last row. */
export async function timeQuery(client, sql, params = []) {
  const started = process.hrtime.bigint();
  const { rows } = await client.query(sql, params);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, rows };
}

/**
 * Pages timed in PostgreSQL alone, each rendered as the service renders one (a text of JSON lines, each row's
 * object written by its `json` expression where the statement has one: jsonPage in src/database/json-pages.ts) on
 * `client`: a warm-up run of each, then `rounds` runs of each, interleaved. For each statement of `statements` (by
 * name): its times in ms, and the text of its last run.
 */
export async function timePages(client, statements, rounds) {
  const once = async ({ sql, params, json = 'row_to_json(r)::text' }) => {
    const { ms, rows } = await timeQuery(client, `SELECT string_agg(${json}, E'\\n') AS lines FROM (${sql}) r`, params);
    return { ms, text: rows[0].lines ?? '' };
  };
  for (const statement of Object.values(statements)) await once(statement);
  const timed = Object.fromEntries(Object.keys(statements).map((name) => [name, { times: [], text: '' }]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, statement] of Object.entries(statements)) {
      const run = await once(statement);
      timed[name].times.push(run.ms);
      timed[name].text = run.text;
    }
  }
  return timed;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The built service (node dist/main.js, WORKER=off unless `env` says) on the database, on a free port; resolves
 * once /health/live answers. `dir`: the checkout whose build runs (another commit's, for an A/B run); `execArgv`:
 * Node's flags for it (those NODE_OPTIONS refuses, such as --trace-gc); `onOutput`: given everything it writes.
 */
export async function startService(dbUrl, env = {}, dir = '.', { execArgv = [], onOutput } = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [...execArgv, join(resolve(dir), 'dist/main.js')], {
    cwd: resolve(dir),
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKER: 'off',
      DOCS: 'off',
      // Request logs off under load: one JSON line per request is an operator's choice (LOG_LEVEL=info), and its
      // cost is measured on its own (docs/benchmarks-log.md, "Request logs"), not folded into every endpoint's figure.
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d) => {
    out = (out + d).slice(-20_000); // the last words of a crash, not every log line
    onOutput?.(String(d));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  let exited = null;
  child.on('exit', (code) => (exited = code));
  for (let waited = 0; ; waited += 200) {
    if (exited !== null || waited > 120_000) throw new Error(`service did not start (exit ${exited}): ${out}`);
    const live = await fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (live) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid,
    /** Resident memory of the service process, in bytes. */
    rss: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024,
    stop: () => child.kill('SIGTERM'),
  };
}

/**
 * A floor server (`exportName` of the bench module `file`, called with `args`) in a process of its own, as the
 * service runs in its own: autocannon's work then never shares an event loop with the server it measures, and
 * every server of a run is measured in the same arrangement. `execArgv`: Node's flags for it; `onOutput`: given its
 * standard output instead of this process's. Resolves with its url; `close()` closes the server (a
 * floor drops its copy of the data) and waits for the process to end.
 */
export async function inOwnProcess(file, exportName, args, { execArgv, onOutput } = {}) {
  const child = fork(
    new URL('./own-process.mjs', import.meta.url),
    [new URL(file, import.meta.url).href, exportName, JSON.stringify(args)],
    {
      stdio: ['ignore', onOutput ? 'pipe' : 'inherit', 'inherit', 'ipc'],
      ...(execArgv ? { execArgv } : {}),
    },
  );
  if (onOutput) child.stdout.on('data', (d) => onOutput(String(d)));
  const ended = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m.url));
    ended.then((code) => reject(new Error(`${file} ended (exit ${code}) before it served`)));
  });
  return {
    url,
    pid: child.pid,
    async close() {
      child.send('close');
      const code = await ended;
      if (code !== 0) throw new Error(`${file} closed with exit ${code}`);
    },
  };
}

/**
 * Writes bench/results/<name>.json with the machine and commit the figures come from: the one checked out, unless
 * the result names the one its build came from (`commit`).
 */
export function writeResult(name, result) {
  const full = {
    ...result,
    machine: { cpus: cpus().length, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    commit: result.commit ?? commitOf(),
    at: new Date().toISOString(),
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(full, null, 2)}\n`);
  return full;
}

/**
 * autocannon on `base` for `duration` seconds, cycling through `paths` (GET) with the key; a path may come with
 * headers of its own (`{ path, headers }`, an If-None-Match say).
 */
export function loadTest({ base, paths, duration, connections, token }) {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: base,
        connections,
        duration,
        headers: { 'x-api-key': token },
        requests: paths.map((p) =>
          typeof p === 'string'
            ? { method: 'GET', path: p }
            : { method: 'GET', path: p.path, headers: { 'x-api-key': token, ...p.headers } },
        ),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
}

/**
 * A bench database tracking root0.bench … root{roots-1}.bench and the built service following `logUrl` with the
 * worker on (scans never due); `position()` reads how far it has recorded the log.
 */
export async function followerOn(label, logUrl, roots) {
  const db = await createBenchDatabase(label);
  await db.ds.query(
    `INSERT INTO domains (domain, platform_slug) SELECT 'root' || i || '.bench', 'self' FROM generate_series(0, $1::int - 1) i`,
    [roots],
  );
  const service = await startService(db.dbUrl, {
    WORKER: 'on',
    WORKER_CRON: '0 0 0 1 1 *',
    CT_LOGS: logUrl,
    CT_START: 'start',
    CT_POLL_SECONDS: '1',
  });
  const position = async () => Number((await db.ds.query(`SELECT coalesce(position, 0) AS p FROM ct_logs`))[0]?.p ?? 0);
  return { db, service, position };
}

/**
 * Eight tracked domains to rotate over, from the largest to the 900th by hosts, asked of the service at `base` with
 * `token`: one pick for every benchmark that loads a domain's paths.
 */
export async function benchDomains(base, token) {
  const res = await fetch(`${base}/api/v1/domains?sort=total_subdomains&limit=1000`, {
    headers: { 'x-api-key': token },
  });
  const bySize = (await res.json()).data.map((d) => d.domain);
  return [0, 1, 5, 20, 100, 300, 600, 900].map((i) => bySize[Math.min(i, bySize.length - 1)]);
}

/**
 * An API path with `{domain}` as the paths to load: one for each of benchDomains' eight; a path without it, alone.
 * Both under /api/v1.
 */
export async function domainPaths(base, token) {
  const picked = await benchDomains(base, token);
  return (path) =>
    path.includes('{domain}') ? picked.map((d) => `/api/v1${path.replaceAll('{domain}', d)}`) : [`/api/v1${path}`];
}
