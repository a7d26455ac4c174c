// Host knowledge (issue: DNS records, HTTP probe), measured in one run:
//   - resolution: DnsResolver.answer (A, AAAA and the CNAME chain, as the liveness phase asks) of
//     INTEL_BENCH_NAMES names against a loopback DNS server in its own process (dns2, as the tests use),
//     DNS_CONCURRENCY=200; the floor is the same server asked one A query per name by node:dns alone;
//   - probing: probeHost of INTEL_BENCH_HOSTS hosts against a loopback HTTPS server in its own process (port 443's
//     path: TLS, a GET, the title), 100 at once; the floor is a bare https.get of the same URLs;
//   - storage: host_intel for 1M hosts of a realistic mix, table and index, per host.
// Usage: npm run build && node bench/intel.mjs
import { fork } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import https from 'node:https';
import { DnsResolver } from '../dist/src/intel/dns/dns-resolver.js';
import { probeHost } from '../dist/src/intel/probe/http-probe.js';
import { mapLimit } from '../dist/src/common/concurrency.js';
import { createBenchDatabase, fillHostIntel, median, writeResult } from './harness.mjs';

const NAMES = Number(process.env.INTEL_BENCH_NAMES ?? 20_000);
const HOSTS = Number(process.env.INTEL_BENCH_HOSTS ?? 5_000);
const STORAGE_HOSTS = Number(process.env.INTEL_BENCH_STORAGE_HOSTS ?? 1_000_000);
const ROUNDS = 3;

function child(role) {
  const proc = fork(new URL('./intel-servers.mjs', import.meta.url), [role], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  process.on('exit', () => proc.kill());
  return new Promise((resolve) => proc.once('message', (port) => resolve({ port, proc })));
}

const rate = (count, started) => Math.round(count / (Number(process.hrtime.bigint() - started) / 1e9));

async function resolution() {
  const { port, proc } = await child('dns');
  const server = `127.0.0.1:${port}`;
  const names = Array.from({ length: NAMES }, (_, i) => `h${i}.bench.test`);
  const resolver = new DnsResolver([server], 3000);
  const floorResolver = new Resolver({ timeout: 3000, tries: 2 }); // as DnsResolver asks
  floorResolver.setServers([server]);
  const service = [];
  const floor = [];
  for (let round = 0; round < ROUNDS; round++) {
    let t = process.hrtime.bigint();
    const answers = await mapLimit(names, 200, (n) => resolver.answer(n));
    service.push(rate(NAMES, t));
    console.log(`resolution round ${round}: ${service.at(-1)} names/s`);
    if (answers.filter((a) => a.status === 'resolved').length < NAMES * 0.99) throw new Error('lookups failed');
    t = process.hrtime.bigint();
    const floorAnswers = await mapLimit(names, 200, (n) => floorResolver.resolve4(n).catch(() => null));
    floor.push(rate(NAMES, t));
    if (floorAnswers.filter(Boolean).length < NAMES * 0.99) throw new Error('floor lookups failed');
  }
  proc.kill();
  return { names_per_s: median(service), floor_a_queries_per_s: median(floor), runs: service };
}

async function probing() {
  const { port, proc } = await child('https');
  const hosts = Array.from({ length: HOSTS }, (_, i) => `h${i}.bench.test`);
  const opts = { ports: [port], timeoutMs: 5000, maxRedirects: 3, allowPrivate: true, resolve: async () => [] };
  const service = [];
  const floor = [];
  for (let round = 0; round < ROUNDS; round++) {
    let t = process.hrtime.bigint();
    const results = await mapLimit(hosts, 100, (h) => probeHost(h, ['127.0.0.1'], opts));
    service.push(rate(HOSTS, t));
    if (results.some((r) => r?.probe.status !== 200)) throw new Error('a probe failed');
    t = process.hrtime.bigint();
    await mapLimit(
      hosts,
      100,
      (h) =>
        new Promise((resolve, reject) =>
          https
            .get(
              {
                host: '127.0.0.1',
                port,
                path: '/',
                servername: h,
                headers: { host: h },
                rejectUnauthorized: false,
                agent: false,
              },
              (res) => {
                res.resume();
                res.on('end', resolve);
              },
            )
            .on('error', reject),
        ),
    );
    floor.push(rate(HOSTS, t));
  }
  proc.kill();
  return { hosts_per_s: median(service), floor_gets_per_s: median(floor), runs: service };
}

/** host_intel at STORAGE_HOSTS hosts of the realistic mix (fillHostIntel): after VACUUM ANALYZE, table and index, per host. */
async function storage() {
  const db = await createBenchDatabase('intel');
  const { ds } = db;
  await ds.query(`INSERT INTO domains (domain, platform_slug) VALUES ('bench.test', 'self')`);
  await ds.query(
    `INSERT INTO hosts (domain_id, host, first_seen_at, last_seen_at)
     SELECT 1, 'h' || i || '.bench.test', now(), now() FROM generate_series(1, $1::int) i`,
    [STORAGE_HOSTS],
  );
  await fillHostIntel(ds);
  await ds.query('VACUUM ANALYZE host_intel');
  const [sizes] = await ds.query(
    `SELECT pg_total_relation_size('host_intel')::bigint AS intel, pg_total_relation_size('hosts')::bigint AS hosts`,
  );
  await db.drop();
  const perHost = (bytes) => Math.round(Number(bytes) / STORAGE_HOSTS);
  return {
    hosts: STORAGE_HOSTS,
    new_bytes_per_host: perHost(sizes.intel),
    hosts_table_bytes_per_host: perHost(sizes.hosts),
  };
}

const result = { resolution: await resolution(), probing: await probing(), storage: await storage() };
console.log(JSON.stringify(writeResult('intel', result), null, 2));
process.exit(0);
