// Prints the benchmark figures of bench/results/*.json against the targets, as BENCHMARKS.md reports them:
// each JSON read endpoint against its floors, p99 from 1M to 10M hosts, export, scan persistence and the soak.
// Usage: node bench/report.mjs
import { existsSync, readFileSync } from 'node:fs';

const read = (name) => {
  const file = new URL(`./results/${name}.json`, import.meta.url);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
};
const mark = (ok) => (ok ? 'met' : 'NOT met');
const table = (head, rows) => {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  console.log([line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
};

const small = read('api-1000000');
const large = read('api-10000000');
/** One API run's table: the service against the Node floor (framework cost) and the independent floor. */
function apiTable(run, title) {
  console.log(
    `\n${title} at ${run.hosts.toLocaleString('en')} hosts over ${(run.roots ?? 2000).toLocaleString('en')} roots ` +
      `(commit ${run.commit}, ${run.seconds} s each, ${run.connections} connections)\n`,
  );
  table(
    [
      'endpoint',
      'req/s',
      'p50 ms',
      'p99 ms',
      'Node floor req/s',
      'p99 ms',
      'ratio',
      'independent req/s',
      'p99 ms',
      'ratio',
      'p99 ×',
      'DB floor req/s',
      'ratio',
      'target',
    ],
    run.results.map((r) => [
      r.endpoint,
      r.service.rps,
      r.service.p50,
      r.service.p99,
      r.node_floor?.rps ?? '—',
      r.node_floor?.p99 ?? '—',
      r.ratio_to_node_floor ?? '—',
      r.independent_floor?.rps ?? '—',
      r.independent_floor?.p99 ?? '—',
      r.ratio_to_independent_floor ?? '—',
      r.p99_to_independent_floor ?? '—',
      r.db_floor?.rps ?? '—',
      r.ratio_to_db_floor ?? '—',
      r.node_floor ? mark(r.ratio_to_node_floor >= 1 && r.service.p99 <= r.node_floor.p99) : 'no floor',
    ]),
  );
  const below = run.results.filter((r) => r.ratio_to_independent_floor < 1);
  if (below.some((r) => r.independent_floor)) {
    console.log(
      `below the independent floor's req/s: ${below.length} of ${run.results.length} ` +
        `(${below.map((r) => `${r.endpoint} ${r.ratio_to_independent_floor}`).join(', ')})`,
    );
  }
}
if (small) apiTable(small, 'JSON read endpoints');
const manyRoots = read('api-1000000-50000roots');
if (manyRoots) apiTable(manyRoots, 'JSON read endpoints');
if (small && large) {
  console.log(
    `\np99 from ${small.hosts.toLocaleString('en')} to ${large.hosts.toLocaleString('en')} hosts (target: at most 2x)\n`,
  );
  table(
    ['endpoint', 'p99 1M ms', 'p99 10M ms', 'growth', 'req/s 1M', 'req/s 10M', 'target'],
    small.results.map((r) => {
      const big = large.results.find((x) => x.endpoint === r.endpoint);
      const growth = big ? +(big.service.p99 / Math.max(r.service.p99, 1)).toFixed(2) : NaN;
      return [
        r.endpoint,
        r.service.p99,
        big?.service.p99 ?? '—',
        growth,
        r.service.rps,
        big?.service.rps ?? '—',
        mark(growth <= 2),
      ];
    }),
  );
}
for (const hosts of [1_000_000, 10_000_000]) {
  const e = read(`export-${hosts}`);
  if (!e?.cases) continue;
  for (const c of e.cases) {
    // txt and CSV against psql \copy: >= 0.8; gzip against psql \copy | gzip -1: >= 0.5. JSON has no target.
    const target = c.name.startsWith('json') ? null : c.encoding ? 0.5 : 0.8;
    const against = target === null ? 'no target' : `target >= ${target}: ${mark(c.ratio_to_floor >= target)}`;
    console.log(
      `\nexport of ${c.service.rows.toLocaleString('en')} hosts as ${c.name}: ${Math.round(c.service.rows_per_second).toLocaleString('en')} rows/s, ` +
        `floor ${Math.round(c.floor.rows_per_second).toLocaleString('en')} rows/s, ratio ${c.ratio_to_floor} (${against}); ` +
        `server RSS +${c.service.rss_growth_mb.toFixed(1)} MB (target < 100 MB: ${mark(c.service.rss_growth_mb < 100)})`,
    );
  }
}
const p = read('scan-persistence');
if (p) {
  const ratio = +(p.service_ms.median / p.floor_ms.median).toFixed(2);
  console.log(
    `\nscan persistence of ${p.names.toLocaleString('en')} names: ${(p.service_ms.median / 1000).toFixed(2)} s, ` +
      `plain insert ${(p.floor_ms.median / 1000).toFixed(2)} s, ratio ${ratio} (target <= 2: ${mark(ratio <= 2)})`,
  );
}
const s = read('soak');
if (s) {
  console.log(
    `\nsoak: ${s.seconds} s at ${s.connections} connections, ${s.requests.toLocaleString('en')} requests, ` +
      `errors ${s.errors + s.timeouts + s.non_2xx}, scans ${s.scans.finished} finished / ${s.scans.failed} failed, ` +
      `RSS low ${s.rss_mb.first_20s_low} → ${s.rss_mb.last_20s_low} MB (x${s.memory_growth_ratio}): ${s.pass ? 'met' : 'NOT met'}`,
  );
}
const c = read('ct-follow');
if (c) {
  console.log(
    `\nCT follower: ${c.follower_entries_per_s.toLocaleString('en')} entries/s end to end against ${c.roots.toLocaleString('en')} roots ` +
      `(target >= 10,000: ${mark(c.follower_entries_per_s >= 10_000)}), ${c.ratio_to_floor} of a bare client's ` +
      `${c.floor_entries_per_s.toLocaleString('en')}; parser alone ${c.parser.entryNames_per_s.toLocaleString('en')} entries/s ` +
      `(crypto.X509Certificate ${c.parser.x509certificate_per_s.toLocaleString('en')}); latency p50 ${c.latency_ms.p50} ms, ` +
      `p99 ${c.latency_ms.p99} ms (target <= CT_POLL_SECONDS + 2 s = 3,000 ms: ${mark(c.latency_ms.p99 <= 3000)}); ` +
      `RSS ${c.rss_mb.first} → ${c.rss_mb.last} MB (peak ${c.rss_mb.peak})`,
  );
  if (c.soak) {
    console.log(
      `CT follow of ${c.soak.seconds} s at ${c.soak.rate} entries/s: ${c.soak.entries_followed.toLocaleString('en')} entries, ` +
        `${c.soak.lag_at_end} behind at the end; RSS low ${c.soak.rss_mb_low_after_warm_up} MB after the warm-up, ` +
        `${c.soak.rss_mb_low_last_two_minutes} MB in the last two minutes (x${c.soak.late_to_early}, target <= 1.1: ` +
        `${mark(c.soak.flat)}; peak ${c.soak.rss_mb_peak} MB)`,
    );
  }
}
const k = read('intel');
if (k) {
  console.log(
    `\nhost knowledge: resolution ${k.resolution.names_per_s.toLocaleString('en')} names/s (target >= 5,000: ` +
      `${mark(k.resolution.names_per_s >= 5000)}; one A query a name ${k.resolution.floor_a_queries_per_s.toLocaleString('en')}/s), ` +
      `probing ${k.probing.hosts_per_s.toLocaleString('en')} hosts/s (target >= 1,000: ${mark(k.probing.hosts_per_s >= 1000)}; ` +
      `bare https.get ${k.probing.floor_gets_per_s.toLocaleString('en')}/s), storage ${k.storage.new_bytes_per_host} bytes a ` +
      `host at ${k.storage.hosts.toLocaleString('en')} hosts (target <= 250: ${mark(k.storage.new_bytes_per_host <= 250)})`,
  );
}
const rules = read('scope-rules');
if (rules) {
  const secs = (ms) => (ms / 1000).toFixed(1);
  console.log(
    `\nexclusion rules at ${rules.hosts.toLocaleString('en')} hosts of one domain: add ${secs(rules.median_ms.add)} s ` +
      `(${rules.moved.toLocaleString('en')} hosts moved), remove ${secs(rules.median_ms.remove)} s (target < 10 s: ` +
      `${mark(Math.max(rules.median_ms.add, rules.median_ms.remove) < 10_000)}); a rule moving nothing ${secs(rules.median_ms.none)} s; ` +
      `hand-written pass ${secs(rules.median_ms.floor)} s (add ${rules.ratio_to_floor.add}x)`,
  );
}
for (const name of ['conditional-1000000', 'conditional-1000000-50000roots']) {
  const cond = read(name);
  if (!cond) continue;
  console.log(
    `\nconditional requests and cached aggregates at ${cond.hosts.toLocaleString('en')} hosts over ` +
      `${(cond.roots ?? 2000).toLocaleString('en')} roots (commit ${cond.commit}): service against the floors' 200s\n`,
  );
  table(
    ['endpoint', 'answer', 'req/s', 'p99 ms', 'indep. floor req/s', 'p99 ms', 'ratio', 'Node floor ratio', 'target'],
    cond.results.map((r) => {
      const target = r.kind === '304' ? 5 : 3;
      const ratio = r.ratio_to_independent_floor ?? r.ratio_to_node_floor;
      return [
        r.endpoint,
        r.kind,
        r.service.rps,
        r.service.p99,
        r.independent_floor?.rps ?? '-',
        r.independent_floor?.p99 ?? '-',
        ratio,
        r.ratio_to_node_floor,
        `>= ${target}: ${mark(ratio >= target)}`,
      ];
    }),
  );
  const f = cond.freshness;
  console.log(
    `freshness over ${f.trials} trials: a host committed shows through a cached endpoint in p50 ${f.p50_ms} ms, ` +
      `p99 ${f.p99_ms} ms (target <= 100 ms: ${mark(f.p99_ms <= 100)})`,
  );
}

const dashboard = read('dashboard-1000000');
if (dashboard) {
  console.log(
    `\ndashboard pages at ${dashboard.hosts.toLocaleString('en')} hosts (commit ${dashboard.commit}): ` +
      `${dashboard.requests_per_page} requests per page, one at a time\n`,
  );
  table(
    ['page', 'p50 ms', 'p95 ms', 'API requests p95 ms', 'ratio', 'target p95 <= 300 ms'],
    Object.entries(dashboard.pages).map(([page, r]) => [
      page,
      r.p50_ms,
      r.p95_ms,
      r.api_floor_p95_ms,
      r.p95_ratio_to_floor,
      mark(r.p95_ms <= 300),
    ]),
  );
  console.log(
    `script on every page, as sent (br): ${dashboard.script_total_sent_bytes} bytes ` +
      `(target <= 100 KB: ${mark(dashboard.script_total_sent_bytes <= 100 * 1024)})`,
  );
}
