// Scan persistence against its floor, on the PostgreSQL server, in one run on the same data:
//   service — stage 100k names then commit them (ScanStoreRepository: the statements a real scan runs),
//   floor   — the plain set-based INSERT of the same 100k names into hosts.
// Also a rescan of the same 100k (every host exists: update path). Medians of BENCH_RUNS alternated runs.
// Usage: npm run build && node bench/scan-persistence.mjs   (BENCH_DATABASE_URL, BENCH_NAMES, BENCH_RUNS)
import { ScanStoreRepository } from '../dist/src/discovery/scan-store.repository.js';
import { HostStore } from '../dist/src/hosts/store/host-store.js';
import { createBenchDatabase, median, writeResult } from './harness.mjs';

const count = Number(process.env.BENCH_NAMES ?? 100_000);
const runs = Number(process.env.BENCH_RUNS ?? 5);

const db = await createBenchDatabase('persistence');
const { ds } = db;
const store = new ScanStoreRepository(ds, new HostStore(ds));

const names = (domain) =>
  Array.from({ length: count }, (_, i) => `h${i.toString(36)}-${(i * 7919) % 100003}.${domain}`);
const time = async (fn) => {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

async function newDomain(label) {
  const [{ id }] = await ds.query(`INSERT INTO domains (domain, platform_slug) VALUES ($1, 'self') RETURNING id`, [
    label,
  ]);
  return id;
}
async function scanOf(domainId, domain) {
  const [row] = await ds.query(
    `INSERT INTO scans (domain_id, trigger, status) VALUES ($1, 'cli', 'running')
     RETURNING id, to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "startedAt"`,
    [domainId],
  );
  return { id: row.id, domainId, domain, trigger: 'cli', progress: {}, startedAt: row.startedAt, attempts: 0 };
}
async function persist(scan, hosts) {
  await store.stage(scan.id, 'crtsh', hosts, 0, { phase: 'commit' }, 0);
  return store.finishSuccess(scan, true);
}

const service = [];
const rescan = [];
const floor = [];
for (let run = 0; run < runs; run++) {
  const d1 = `svc${run}.bench`;
  const id1 = await newDomain(d1);
  const hosts1 = names(d1);
  const scan1 = await scanOf(id1, d1);
  service.push(await time(() => persist(scan1, hosts1)));
  const scan2 = await scanOf(id1, d1);
  rescan.push(await time(() => persist(scan2, hosts1)));

  const d2 = `floor${run}.bench`;
  const id2 = await newDomain(d2);
  const hosts2 = names(d2);
  floor.push(
    await time(() => ds.query(`INSERT INTO hosts (domain_id, host) SELECT $1, unnest($2::text[])`, [id2, hosts2])),
  );
}

const postgres = (await ds.query('SHOW server_version'))[0].server_version;
await db.drop();
const result = writeResult('scan-persistence', {
  benchmark: 'scan-persistence',
  names: count,
  runs,
  postgres,
  service_ms: { median: median(service), all: service },
  rescan_ms: { median: median(rescan), all: rescan },
  floor_ms: { median: median(floor), all: floor },
  ratio_to_floor: +(median(service) / median(floor)).toFixed(2),
  rescan_ratio_to_floor: +(median(rescan) / median(floor)).toFixed(2),
});
console.log(
  `scan persistence of ${count} names (median of ${runs}): new ${result.service_ms.median.toFixed(0)} ms, ` +
    `rescan ${result.rescan_ms.median.toFixed(0)} ms, plain insert ${result.floor_ms.median.toFixed(0)} ms; ` +
    `ratio ${result.ratio_to_floor} (rescan ${result.rescan_ratio_to_floor})`,
);
