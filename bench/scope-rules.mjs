// Re-evaluating a root domain's hosts when an exclusion rule comes or goes, on the PostgreSQL server: one domain
// of BENCH_SCOPE_HOSTS (1,000,000) hosts, with what the service would know of each (fillHostIntel).
//   add     — ScopeRulesRepository.add of a regex naming a tenth of the hosts: they move out of scope, each with
//             a scope_changed event (the statement the API and the CLI run);
//   remove  — its removal: they move back;
//   none    — a rule naming no host: the re-evaluation alone, nothing moves;
//   floor   — the least any re-evaluation must read, written by hand: one pass over the domain's hosts joined to
//             what is known of them, matching each against the rule, counting those whose scope would move.
// Target: add and remove under 10 s at 1M hosts. Medians of BENCH_RUNS runs.
// Usage: npm run build && node bench/scope-rules.mjs   (BENCH_DATABASE_URL, BENCH_SCOPE_HOSTS, BENCH_RUNS)
import { ScopeRulesRepository } from '../dist/src/scope/scope-rules.repository.js';
import { HostStore } from '../dist/src/hosts/store/host-store.js';
import { parseExclusionPattern } from '../dist/src/scope/exclusion-pattern.js';
import pg from 'pg';
import { createBenchDatabase, fillHostIntel, median, writeResult } from './harness.mjs';

const count = Number(process.env.BENCH_SCOPE_HOSTS ?? 1_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 3);

const db = await createBenchDatabase('scope');
const { ds } = db;
const rules = new ScopeRulesRepository(ds, new HostStore(ds));
const time = async (fn) => {
  const t0 = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, result };
};

const [{ id: domainId }] = await ds.query(
  `INSERT INTO domains (domain, platform_slug) VALUES ('scope.bench', 'self') RETURNING id`,
);
console.log(`seeding ${count} hosts`);
// Seeded on a connection of its own, without the service's QUERY_TIMEOUT_MS; what is measured runs with it.
const seeder = new pg.Client({ connectionString: db.dbUrl });
await seeder.connect();
await seeder.query('SET statement_timeout = 0');
await seeder.query(
  `INSERT INTO hosts (domain_id, host, first_seen_at)
   SELECT $1, 'h' || g || '-' || (g::bigint * 7919 % 100003) || '.scope.bench', now() - make_interval(secs => $2 - g)
     FROM generate_series(1, $2) g`,
  [domainId, count],
);
await fillHostIntel({ query: (sql, params) => seeder.query(sql, params) });
await seeder.query('VACUUM ANALYZE hosts');
await seeder.end();

// Hosts h1…, h1x… (one digit after the 1 and the dash follows): a ninth to a tenth of them.
const tenth = parseExclusionPattern('re:^h1[0-9]*-');
const nothing = parseExclusionPattern('*.none.scope.bench');
const figures = { add: [], remove: [], none: [], floor: [], moved: null };
for (let run = 0; run < runs; run++) {
  const added = await time(() => rules.add(domainId, [tenth]));
  figures.add.push(added.ms);
  figures.moved = added.result.moved;
  figures.remove.push((await time(() => rules.remove(domainId, [tenth.pattern]))).ms);
  figures.none.push((await time(() => rules.add(domainId, [nothing]))).ms);
  await rules.remove(domainId, [nothing.pattern]);
  figures.floor.push(
    (
      await time(() =>
        ds.query(
          `SELECT count(*) FROM hosts h LEFT JOIN host_intel k ON k.host_id = h.id
            WHERE h.domain_id = $1 AND (h.host ~ $2) <> coalesce(k.out_of_scope, false)`,
          [domainId, tenth.regex],
        ),
      )
    ).ms,
  );
  await ds.query('VACUUM ANALYZE host_intel, host_events');
}

const result = {
  hosts: count,
  moved: figures.moved,
  runs,
  median_ms: Object.fromEntries(['add', 'remove', 'none', 'floor'].map((k) => [k, Math.round(median(figures[k]))])),
  runs_ms: Object.fromEntries(['add', 'remove', 'none', 'floor'].map((k) => [k, figures[k].map(Math.round)])),
};
result.ratio_to_floor = {
  add: +(result.median_ms.add / result.median_ms.floor).toFixed(2),
  remove: +(result.median_ms.remove / result.median_ms.floor).toFixed(2),
  none: +(result.median_ms.none / result.median_ms.floor).toFixed(2),
};
console.log(JSON.stringify(writeResult('scope-rules', result), null, 2));
await db.drop();
