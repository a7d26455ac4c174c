// What hiding costs the feeds, in PostgreSQL alone (no HTTP, no Node): the feeds leave out wildcard echoes and
// out-of-scope hosts by default (and the bulk feed out-of-scope ones), which the build before host knowledge
// (17ae0f0) did not; its p99 on these paths is the #40 target. Each feed page of bench/lean.mjs is run as the
// service builds it (the check of each row against host_intel_hidden_idx) and as the same statement without the
// check (what 17ae0f0 ran), rendered as the service renders a page, on 1,000,000 hosts over BENCH_ROOTS roots with
// the realistic mix of knowledge, a few hidden (fillHostIntel: 5,000 wildcard echoes, 10,000 out of scope).
// Then the layout that would make the check free is measured on the same copy: each host's hidden bits on its row,
// carried by the feed indexes so the walks filter on what they read. Its reads are the same statements with the
// check on the row's bits; its cost is on the writes: an exclusion rule that moves one host in nine (as many as the
// #21 bench's rule moves) then rewrites each of those rows and its entries in the table's six indexes, where today
// it writes host_intel.
// Every page is in shared buffers (a warm-up round first): this measures CPU, not I/O. Medians of BENCH_ROUNDS
// (200) interleaved runs. Results: bench/results/hiding-cost.json.
// Usage: npm run build && node bench/hiding-cost.mjs   (BENCH_ROUNDS, BENCH_ROOTS)
import { createBenchDatabase, fillHostIntel, median, timePages, timeQuery, writeResult } from './harness.mjs';
import { domainNewStatement, newFeedStatement, platformPageStatement } from '../dist/src/hosts/host-lists.sql.js';
import { hiddenConditions, rootScopeConditions } from '../dist/src/hosts/model/knowledge-filter.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const db = await createBenchDatabase('hiding', { hosts: 1_000_000 });
await fillHostIntel(db.ds, { hidden: true });
const client = await db.ds.driver.master.connect();

const [largest] = await db.ds.query(
  `SELECT id, EXISTS (SELECT 1 FROM scope_rules r WHERE r.domain_id = d.id) AS "hasScopeRules"
     FROM domains d ORDER BY total_subdomains DESC LIMIT 1`,
);
const days = (n) => new Date(Date.now() - n * 86_400_000).toISOString();
const feedDefault = { wildcard: 'exclude', scope: 'in' };
const pages = {
  'every new host (24 hours, 500)': newFeedStatement({ since: days(1), limit: 500, knowledge: feedDefault }),
  "a domain's new hosts (the largest, 30 days, 2,000)": domainNewStatement(largest, days(30), 2000, feedDefault),
  "a platform's new hosts (hackerone, 7 days, 2,000)": newFeedStatement({
    since: days(7),
    limit: 2000,
    platform: 'hackerone',
    knowledge: feedDefault,
  }),
  "a platform's hosts (hackerone, 1,000)": platformPageStatement({
    platform: 'hackerone',
    limit: 1000,
    activeOnly: false,
    scope: 'in',
  }),
};

// The check as the statements carry it, and what each variant puts in its place.
const checks = [
  hiddenConditions('exclude', 'in')[0],
  hiddenConditions('exclude', undefined)[0],
  hiddenConditions(undefined, 'in')[0],
  rootScopeConditions('in').hosts[0],
];
const bits = Object.fromEntries(
  checks.map((check, i) => [check, ['h.hidden = 0', 'h.hidden & 1 = 0'][i] ?? 'h.hidden & 2 = 0']),
);
const variant = (statement, as) => {
  let sql = statement.sql;
  for (const check of checks) sql = sql.replaceAll(check, as === 'none' ? 'true' : bits[check]);
  // A platform's feed walks its hosts in a subquery of its own (newFeedStatement): the bits go through it.
  if (as === 'bits') sql = sql.replace('SELECT h.id, h.host, h.first_seen_at, h.sources,', '$& h.hidden,');
  if (sql === statement.sql) throw new Error(`no hiding check in: ${statement.sql}`);
  return { sql, params: statement.params, json: statement.json };
};

// Medians, and how many rows a page had.
async function measure(statements) {
  const timed = await timePages(client, statements, rounds);
  return Object.fromEntries(
    Object.entries(timed).map(([name, { times, text }]) => [
      name,
      { median_ms: +median(times).toFixed(2), rows: text ? text.split('\n').length : 0 },
    ]),
  );
}

// Today's layout: the service's statements, and the same without the check.
const reads = {};
for (const [page, statement] of Object.entries(pages)) {
  reads[page] = await measure({ service: statement, unhidden: variant(statement, 'none') });
}

// The other layout, on the same copy: hidden bits on each host (1 a wildcard echo, 2 out of scope), carried by the
// two feed indexes that the walks read alone.
await client.query('SET statement_timeout = 0');
await client.query('ALTER TABLE hosts ADD COLUMN hidden smallint NOT NULL DEFAULT 0');
await client.query(`UPDATE hosts h SET hidden = (coalesce(k.wildcard, false)::int | coalesce(k.out_of_scope, false)::int << 1)
                      FROM host_intel k WHERE k.host_id = h.id AND (k.wildcard OR k.out_of_scope)`);
await client.query('DROP INDEX hosts_new_feed_idx');
await client.query(
  'CREATE INDEX hosts_new_feed_idx ON hosts (first_seen_at DESC, id DESC) INCLUDE (domain_id, host, sources, is_active, hidden)',
);
await client.query(
  'CREATE UNIQUE INDEX hosts_domain_host_bits ON hosts (domain_id, host) INCLUDE (id, is_active, sources, hidden)',
);
await client.query('ALTER TABLE hosts DROP CONSTRAINT hosts_domain_host_key CASCADE');
await client.query('VACUUM ANALYZE hosts');
for (const [page, statement] of Object.entries(pages)) {
  reads[page].bits = (await measure({ bits: variant(statement, 'bits') })).bits;
}

// The writes of an exclusion rule that moves one host in nine out of scope (111,111 of 1M; bench/scope-rules.mjs
// moves 111,112): host_intel alone (today), and host_intel with each host's bits. Each in a transaction rolled back.
const moved = `SELECT id FROM hosts WHERE id % 9 = 0`;
const markMoved = `INSERT INTO host_intel (host_id, out_of_scope) SELECT id, true FROM (${moved}) m
                   ON CONFLICT (host_id) DO UPDATE SET out_of_scope = excluded.out_of_scope`;
const timed = async (sql) => (await timeQuery(client, sql)).ms;
const writes = { intel: [], bits: [] };
for (let round = 0; round < 3; round++) {
  await client.query('BEGIN');
  writes.intel.push(await timed(markMoved));
  await client.query('ROLLBACK');
  await client.query('BEGIN');
  writes.bits.push((await timed(markMoved)) + (await timed(`UPDATE hosts SET hidden = hidden | 2 WHERE id % 9 = 0`)));
  await client.query('ROLLBACK');
}
const [{ count }] = (await client.query(`SELECT count(*)::int AS count FROM (${moved}) m`)).rows;
const rule = { moved: count, intel_ms: Math.round(median(writes.intel)), bits_ms: Math.round(median(writes.bits)) };

for (const [page, r] of Object.entries(reads)) {
  console.log(
    `${page}: ${r.service.rows} rows; service ${r.service.median_ms} ms, without the check ${r.unhidden.median_ms} ms ` +
      `(× ${(r.service.median_ms / r.unhidden.median_ms).toFixed(2)}), bits on the row ${r.bits.median_ms} ms`,
  );
}
console.log(`a rule moving ${rule.moved} hosts: host_intel ${rule.intel_ms} ms, with the bits ${rule.bits_ms} ms`);

client.release();
writeResult('hiding-cost', { rounds, reads, rule });
await db.drop();
