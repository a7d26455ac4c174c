// What carrying each host's knowledge costs a page of host rows, in PostgreSQL alone (no HTTP, no Node
// serialising): the time to run and render a page of 500 rows, and its bytes, as the service asks for it (the
// statement it builds, rendered as its JSON lines are), against two floors written here from the schema:
//   page          — the same rows without knowledge (id, host, first_seen_at, sources), read from the same index;
//   page + read   — that page reading each row's host_intel row by key, and rendering one field of it: what any
//                   layout that keeps the knowledge in a table of its own must pay at least.
// Every page is in shared buffers (a warm-up round first): this measures CPU, not I/O. 1,000,000 hosts over
// BENCH_ROOTS roots, each with the realistic mix of knowledge (fillHostIntel). Medians and minimums of
// BENCH_ROUNDS (200) runs each, interleaved. Results: bench/results/knowledge-cost.json.
// Usage: npm run build && node bench/knowledge-cost.mjs   (BENCH_DATABASE_URL, BENCH_ROUNDS)
import { createBenchDatabase, fillHostIntel, median, timePages, writeResult } from './harness.mjs';
import { domainNewStatement, newFeedStatement } from '../dist/src/hosts/host-lists.sql.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const db = await createBenchDatabase('knowledge', { hosts: 1_000_000 });
await fillHostIntel(db.ds);
await db.ds.query('VACUUM ANALYZE');
const client = await db.ds.driver.master.connect();

const [largest] = await db.ds.query(`SELECT id FROM domains ORDER BY total_subdomains DESC LIMIT 1`);
const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
const iso = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const floor = (where, params, limit, { read = false, domain = false } = {}) => ({
  sql: `SELECT h.id::text AS id, h.host, ${domain ? 'd.domain, ' : ''}${iso('h.first_seen_at')} AS first_seen_at,
               host_sources(h.sources) AS sources
               ${read ? ', (SELECT k.title FROM host_intel k WHERE k.host_id = h.id) AS title' : ''}
          FROM hosts h ${domain ? 'JOIN domains d ON d.id = h.domain_id' : ''}
         WHERE ${where} ORDER BY h.first_seen_at DESC, h.id DESC LIMIT ${limit}`,
  params,
});

const cases = {
  "a domain's new hosts (the largest domain, 30 days, 500)": {
    service: domainNewStatement({ id: largest.id, hasScopeRules: false }, since, 500),
    page: floor('h.domain_id = $1 AND h.first_seen_at >= $2', [largest.id, since], 500),
    read: floor('h.domain_id = $1 AND h.first_seen_at >= $2', [largest.id, since], 500, { read: true }),
  },
  'every new host (30 days, 500)': {
    service: newFeedStatement({ since, limit: 499 }),
    page: floor('h.first_seen_at >= $1', [since], 500, { domain: true }),
    read: floor('h.first_seen_at >= $1', [since], 500, { read: true, domain: true }),
  },
};

const results = {};
for (const [name, variants] of Object.entries(cases)) {
  const timed = await timePages(client, variants, rounds);
  results[name] = Object.fromEntries(
    Object.entries(timed).map(([v, { times, text }]) => [
      v,
      { median_ms: +median(times).toFixed(2), min_ms: +Math.min(...times).toFixed(2), bytes: text.length },
    ]),
  );
  const r = results[name];
  console.log(
    `${name}: page ${r.page.min_ms} ms (${r.page.bytes} B) | page + read ${r.read.min_ms} ms | service ` +
      `${r.service.min_ms} ms (${r.service.bytes} B) | minimums; service ÷ page ${(r.service.min_ms / r.page.min_ms).toFixed(2)}, ` +
      `page + read ÷ page ${(r.read.min_ms / r.page.min_ms).toFixed(2)}, bytes ÷ ${(r.service.bytes / r.page.bytes).toFixed(2)}`,
  );
}

client.release();
writeResult('knowledge-cost', { rounds, results });
await db.drop();
