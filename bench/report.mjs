// Writes docs/benchmarks.md: the text of bench/benchmarks.template.md with the figures of bench/results/*.json, each
// benchmark's latest against its targets. `npm run bench` ends with it; edit the template or this file, never the page.
// Usage: node bench/report.mjs           writes docs/benchmarks.md and prints the targets
//        node bench/report.mjs --check   exits 1 when docs/benchmarks.md is not what the results make (npm run lint)
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const RESULTS = new URL('./results/', import.meta.url);
const PAGE = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const DEFAULT_ROOTS = 2000; // what the bench seeds when BENCH_ROOTS is not given (harness.mjs)

/** Every results file, by name without `.json`. */
const files = new Map(
  readdirSync(RESULTS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(new URL(f, RESULTS), 'utf8'))]),
);
const newest = (names) =>
  names
    .filter((n) => files.has(n))
    .map((n) => ({ name: n, ...files.get(n) }))
    .sort((a, b) => b.at.localeCompare(a.at))[0];

// Cells: short, numbers as people read them.
const num = (x) => (typeof x === 'number' ? (Number.isInteger(x) ? x.toLocaleString('en') : String(x)) : (x ?? '—'));
const ratio = (a, b) => (a && b ? +(a / b).toFixed(2) : '—');
const verdict = (ok) => (ok ? 'met' : '**not met**');
const day = (r) => r.at.slice(0, 10);
const short = (commit) =>
  /^[0-9a-f]{7,40}(\+changes)?$/.test(commit ?? '') ? commit.replace(/^([0-9a-f]{7})[0-9a-f]*/, '$1') : 'unknown';
const run = (r) => `\`${short(r.commit)}\`, ${day(r)}, \`results/${r.name}.json\``;
const table = (head, rows) =>
  [head, head.map(() => '---'), ...rows]
    .map((cells) => `| ${cells.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`)
    .join('\n');
const seed = (hosts, roots) => `${num(hosts)} hosts over ${num(roots)} roots`;

/** The targets table: one row per target, filled in by each benchmark's section. */
const targets = [];
const target = (what, latest, ok, section) =>
  targets.push([what, latest, ok === null ? 'not judged' : verdict(ok), section]);
const link = (title) =>
  `[${title}](#${title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-')})`;

// ---------------------------------------------------------------------------------------------------------------
// JSON read endpoints: the latest measurement of each endpoint, per seed (hosts, roots). Files: api-<hosts>.json,
// api-<hosts>-<roots>roots.json, and traces of a few endpoints (BENCH_ONLY) under other suffixes. Runs with host
// knowledge (-intel) are another comparison and stay out.
const API = 'JSON read endpoints';
const apiRuns = [...files.entries()]
  .filter(([name, r]) => r.benchmark === 'api' && !name.includes('intel'))
  .map(([name, r]) => ({ name, ...r, roots: r.roots ?? DEFAULT_ROOTS }));
const seeds = [...new Set(apiRuns.map((r) => `${r.hosts}/${r.roots}`))]
  .map((s) => s.split('/').map(Number))
  .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
const apiSection = [];
const apiVerdicts = { node: [], independent: [] };
for (const [hosts, roots] of seeds) {
  const runs = apiRuns.filter((r) => r.hosts === hosts && r.roots === roots).sort((a, b) => b.at.localeCompare(a.at));
  const endpoints = [...new Set(runs.flatMap((r) => r.results.map((x) => x.endpoint)))];
  const order = runs.find((r) => r.results.length === endpoints.length) ?? runs[0];
  endpoints.sort(
    (a, b) => order.results.findIndex((x) => x.endpoint === a) - order.results.findIndex((x) => x.endpoint === b),
  );
  const used = [];
  const rows = endpoints.map((endpoint) => {
    const r = runs.find((x) => x.results.some((y) => y.endpoint === endpoint));
    const x = r.results.find((y) => y.endpoint === endpoint);
    if (!used.includes(r)) used.push(r);
    const nodeOk = x.node_floor ? x.ratio_to_node_floor >= 1 && x.service.p99 <= x.node_floor.p99 : null;
    const indOk = x.independent_floor ? x.ratio_to_independent_floor >= 1 && x.p99_to_independent_floor <= 1 : null;
    return { endpoint, r, x, nodeOk, indOk };
  });
  const label = (r) => String.fromCharCode(65 + used.indexOf(r));
  apiSection.push(
    `### ${seed(hosts, roots)}`,
    '',
    table(
      [
        'endpoint',
        'req/s',
        'p99 ms',
        '÷ Node floor',
        'p99 ÷ Node floor',
        'Node floor target',
        '÷ independent',
        'p99 ÷ independent',
        'independent target',
        '÷ DB floor',
        'run',
      ],
      rows.map(({ endpoint, r, x, nodeOk, indOk }) => [
        endpoint,
        num(x.service.rps),
        num(x.service.p99),
        num(x.ratio_to_node_floor),
        x.node_floor ? ratio(x.service.p99, x.node_floor.p99) : '—',
        nodeOk === null ? '—' : verdict(nodeOk),
        num(x.ratio_to_independent_floor),
        num(x.p99_to_independent_floor),
        indOk === null ? '—' : verdict(indOk),
        num(x.ratio_to_db_floor),
        label(r),
      ]),
    ),
    '',
    'Runs:',
    '',
    ...used.map(
      (r) =>
        `- ${label(r)}: ${run(r)}: ${r.results.length} endpoint${r.results.length === 1 ? '' : 's'}, ` +
        `${r.seconds} s each` +
        (r.rounds > 1 ? `, ${r.rounds} rounds (medians)` : '') +
        '.',
    ),
    '',
  );
  const count = (key) => {
    const judged = rows.filter((row) => row[key] !== null);
    return judged.length ? `${judged.filter((row) => row[key]).length} of ${judged.length}` : null;
  };
  const s = `${num(hosts / 1e6)}M / ${num(roots)} roots`;
  if (count('nodeOk')) apiVerdicts.node.push([`${s}: ${count('nodeOk')}`, rows.every((row) => row.nodeOk !== false)]);
  if (count('indOk'))
    apiVerdicts.independent.push([`${s}: ${count('indOk')}`, rows.every((row) => row.indOk !== false)]);
}
for (const [key, what] of [
  ['node', 'every JSON read endpoint ≥ 1.0 × the Node floor’s req/s, p99 ≤ its p99 (#7)'],
  ['independent', 'every JSON read endpoint ≥ 1.0 × the independent floor’s req/s, p99 ≤ its p99 (#24)'],
]) {
  const v = apiVerdicts[key];
  target(
    what,
    `met by ${v.map(([t]) => t).join('; ')}`,
    v.every(([, ok]) => ok),
    link(API),
  );
}

// p99 from 1M to 10M hosts: only two runs of one commit say how a figure grows.
const GROWTH = 'From 1M to 10M hosts';
const growthSection = [];
{
  const full = (hosts) =>
    apiRuns.filter((r) => r.hosts === hosts && r.roots === DEFAULT_ROOTS && r.results.length >= 19 && !r.only);
  const large = full(10_000_000).sort((a, b) => b.at.localeCompare(a.at))[0];
  const small = large && full(1_000_000).find((r) => r.commit === large.commit);
  const latestSmall = full(1_000_000).sort((a, b) => b.at.localeCompare(a.at))[0];
  if (large && small) {
    const rows = small.results.map((r) => {
      const big = large.results.find((x) => x.endpoint === r.endpoint);
      const growth = big ? +(big.service.p99 / Math.max(r.service.p99, 1)).toFixed(2) : NaN;
      return [r.endpoint, num(r.service.p99), num(big?.service.p99), num(growth), verdict(growth <= 2)];
    });
    growthSection.push(
      table(['endpoint', 'p99 1M ms', 'p99 10M ms', 'growth', 'target ≤ 2×'], rows),
      '',
      `Runs: 1M ${run(small)}; 10M ${run(large)}.`,
    );
    const met = rows.filter((r) => r[4] === 'met').length;
    target(
      'no endpoint’s p99 grows more than 2× from 1M to 10M hosts (#7)',
      `${met} of ${rows.length}`,
      met === rows.length,
      link(GROWTH),
    );
  } else {
    growthSection.push(
      `Not judged on the latest results. The latest 10M run (${large ? run(large) : 'none'}) has no 1M run of\n` +
        `the same commit beside it (the latest 1M run: ${latestSmall ? run(latestSmall) : 'none'}), and figures of\n` +
        'two commits say nothing of growth. Measure both on one build:\n' +
        '`node bench/api.mjs && BENCH_HOSTS=10000000 node bench/api.mjs`. The last pair of one commit is in the run log:\n' +
        '[From 1,000,000 to 10,000,000 hosts](benchmarks-log.md#from-1000000-to-10000000-hosts-commit-e404b7b-the-same-day).',
    );
    target(
      'no endpoint’s p99 grows more than 2× from 1M to 10M hosts (#7)',
      'no 1M and 10M runs of one commit',
      null,
      link(GROWTH),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
const CONDITIONAL = 'Conditional requests and cached aggregates';
const conditionalSection = [];
{
  const runs = [...files.entries()]
    .filter(([, r]) => r.benchmark === 'conditional')
    .map(([name, r]) => ({ name, ...r, roots: r.roots ?? DEFAULT_ROOTS }))
    .sort((a, b) => a.hosts - b.hosts || a.roots - b.roots);
  const answers = [];
  const fresh = [];
  for (const r of runs) {
    const rows = r.results.map((x) => {
      const goal = x.kind === '304' ? 5 : 3;
      const against = x.ratio_to_independent_floor ?? x.ratio_to_node_floor;
      return { x, goal, ok: against >= goal, against };
    });
    conditionalSection.push(
      `### ${seed(r.hosts, r.roots)}`,
      '',
      table(
        ['endpoint', 'answer', 'req/s', 'p99 ms', '÷ independent floor’s 200s', '÷ Node floor’s 200s', 'target'],
        rows.map(({ x, goal, ok }) => [
          x.endpoint,
          x.kind,
          num(x.service.rps),
          num(x.service.p99),
          num(x.ratio_to_independent_floor),
          num(x.ratio_to_node_floor),
          `≥ ${goal}: ${verdict(ok)}`,
        ]),
      ),
      '',
      `Freshness over ${num(r.freshness.trials)} trials: p50 ${r.freshness.p50_ms} ms, p99 ${r.freshness.p99_ms} ms, ` +
        `at most ${r.freshness.max_ms} ms (target p99 ≤ 100 ms: ${verdict(r.freshness.p99_ms <= 100)}).\nRun: ${run(r)}.`,
      '',
    );
    const low = (kind) => Math.min(...rows.filter((row) => row.x.kind === kind).map((row) => row.against));
    answers.push([
      `${num(r.roots)} roots: 304s ≥ ${low('304')} ×, cached ≥ ${low('cached')} ×`,
      rows.every((row) => row.ok),
    ]);
    fresh.push([`${num(r.roots)} roots: p99 ${r.freshness.p99_ms} ms`, r.freshness.p99_ms <= 100]);
  }
  target(
    '304s ≥ 5 × the floor’s 200s; cached aggregates ≥ 3 × (#24)',
    answers.map(([t]) => t).join('; '),
    answers.every(([, ok]) => ok),
    link(CONDITIONAL),
  );
  target(
    'freshness through a cached endpoint ≤ 100 ms at p99 (#24)',
    fresh.map(([t]) => t).join('; '),
    fresh.every(([, ok]) => ok),
    link(CONDITIONAL),
  );
}

// ---------------------------------------------------------------------------------------------------------------
const EXPORT = 'Export';
const exportSection = [];
{
  const byHosts = new Map();
  for (const [name, r] of files) {
    if (!/^export/.test(r.benchmark ?? '')) continue;
    const prev = byHosts.get(r.hosts);
    if (!prev || r.at > prev.at) byHosts.set(r.hosts, { name, ...r });
  }
  const speed = [];
  const memory = [];
  for (const r of [...byHosts.values()].sort((a, b) => a.hosts - b.hosts)) {
    // The first 10M run measured txt alone, in a layout of its own.
    const cases = r.cases ?? [{ name: 'txt', service: r.service, floor: r.floor, ratio_to_floor: r.ratio_to_floor }];
    const rows = cases.map((c) => {
      // txt and CSV against psql \copy: ≥ 0.8 (#7); gzip against psql \copy | gzip -1: ≥ 0.5 (#24); JSON: none.
      const goal = c.name.startsWith('json') ? null : c.encoding ? 0.5 : 0.8;
      return { c, goal, ok: goal === null ? null : c.ratio_to_floor >= goal, rssOk: c.service.rss_growth_mb < 100 };
    });
    exportSection.push(
      `### ${num(r.hosts)} hosts`,
      '',
      table(
        ['case', 'service rows/s', 'floor rows/s', 'ratio', 'target', 'server RSS growth', 'target < 100 MB'],
        rows.map(({ c, goal, ok, rssOk }) => [
          c.name,
          num(Math.round(c.service.rows_per_second)),
          num(Math.round(c.floor.rows_per_second)),
          num(c.ratio_to_floor),
          goal === null ? 'none' : `≥ ${goal}: ${verdict(ok)}`,
          `+${c.service.rss_growth_mb.toFixed(1)} MB`,
          verdict(rssOk),
        ]),
      ),
      '',
      `Run: ${run(r)}, the median of ${r.runs} runs a case.`,
      '',
    );
    const judged = rows.filter((row) => row.ok !== null);
    speed.push([
      `${num(r.hosts / 1e6)}M: ${judged.map((row) => `${row.c.name.replace(', ', ' ')} ${row.c.ratio_to_floor}`).join(', ')}`,
      judged.every((row) => row.ok),
    ]);
    memory.push([
      `${num(r.hosts / 1e6)}M: at most +${Math.max(...rows.map((row) => row.c.service.rss_growth_mb)).toFixed(1)} MB`,
      rows.every((row) => row.rssOk),
    ]);
  }
  target(
    'export ≥ 0.8 × psql’s rows/s (txt #7, CSV #24), gzip ≥ 0.5 × psql | gzip -1 (#24)',
    speed.map(([t]) => t).join('; '),
    speed.every(([, ok]) => ok),
    link(EXPORT),
  );
  target(
    'server RSS grows < 100 MB during the export (#7)',
    memory.map(([t]) => t).join('; '),
    memory.every(([, ok]) => ok),
    link(EXPORT),
  );
}

// ---------------------------------------------------------------------------------------------------------------
const PERSISTENCE = 'Scan persistence';
const persistenceSection = [];
{
  const p = newest(['scan-persistence']);
  if (p) {
    const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const ok = p.ratio_to_floor <= 2;
    persistenceSection.push(
      table(
        ['case', 'median', '÷ plain insert', 'target ≤ 2'],
        [
          [`new domain: ${num(p.names)} new hosts`, s(p.service_ms.median), p.ratio_to_floor, verdict(ok)],
          [`rescan: the same ${num(p.names)} hosts seen again`, s(p.rescan_ms.median), p.rescan_ratio_to_floor, '—'],
          ['floor: plain set-based insert', s(p.floor_ms.median), 1, '—'],
        ],
      ),
      '',
      `Run: ${run(p)}, the median of ${p.runs} alternated runs, PostgreSQL ${p.postgres.split(' ')[0]}.`,
    );
    target(
      'scan persistence of 100k names ≤ 2 × the plain insert (#7)',
      `${p.ratio_to_floor} (a rescan ${p.rescan_ratio_to_floor})`,
      ok,
      link(PERSISTENCE),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
const SOAK = 'Soak';
const soakSection = [];
{
  const s = newest(['soak']);
  if (s) {
    const errors = s.errors + s.timeouts + s.non_2xx;
    soakSection.push(
      table(
        [
          'requests',
          'req/s',
          'p50',
          'p99',
          'errors',
          'scans finished / failed',
          'RSS low, first 20 s → last 20 s',
          'peak',
          'target',
        ],
        [
          [
            num(s.requests),
            num(Math.round(s.rps)),
            `${s.p50} ms`,
            `${num(s.p99)} ms`,
            num(errors),
            `${s.scans.finished} / ${s.scans.failed}`,
            `${s.rss_mb.first_20s_low} → ${s.rss_mb.last_20s_low} MB (× ${s.memory_growth_ratio})`,
            `${s.rss_mb.peak} MB`,
            verdict(s.pass),
          ],
        ],
      ),
      '',
      `Run: ${run(s)}: ${s.seconds} s at ${s.connections} connections over ${s.endpoints} paths,\n` +
        `after ${s.warmup_seconds} s of warm-up.`,
    );
    target(
      `soak: ${s.seconds} s, ${s.connections} connections, scans running: zero errors, no memory growth (#8)`,
      `${num(errors)} errors in ${num(s.requests)} requests; RSS low × ${s.memory_growth_ratio}`,
      s.pass,
      link(SOAK),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
const CT = 'CT log follower';
const ctSection = [];
{
  const c = newest([...files.keys()].filter((n) => n.startsWith('ct-follow')));
  if (c) {
    const rateOk = c.follower_entries_per_s >= 10_000;
    const latencyOk = c.latency_ms.p99 <= 3000;
    ctSection.push(
      table(
        ['figure', 'latest', 'target'],
        [
          [
            `follower end to end, entries/s (${num(c.roots)} roots)`,
            num(c.follower_entries_per_s),
            `≥ 10,000: ${verdict(rateOk)}`,
          ],
          ['floor: a bare client reading the log, entries/s', num(c.floor_entries_per_s), '—'],
          ['follower ÷ floor', c.ratio_to_floor, '—'],
          ['parser alone, entries/s', num(c.parser.entryNames_per_s), '—'],
          ['crypto.X509Certificate, entries/s', num(c.parser.x509certificate_per_s), '—'],
          [
            `latency p50 / p99 (${c.latency_ms.samples} certificates)`,
            `${num(c.latency_ms.p50)} / ${num(c.latency_ms.p99)} ms`,
            `p99 ≤ 3,000 ms: ${verdict(latencyOk)}`,
          ],
          ...(c.soak
            ? [
                [
                  `RSS low over a ${c.soak.seconds / 60}-minute follow at ${num(c.soak.rate)} entries/s`,
                  `${c.soak.rss_mb_low_after_warm_up} → ${c.soak.rss_mb_low_last_two_minutes} MB (× ${c.soak.late_to_early}), ` +
                    `peak ${c.soak.rss_mb_peak} MB, ${num(c.soak.lag_at_end)} behind at the end`,
                  `≤ 1.1 ×: ${verdict(c.soak.flat)}`,
                ],
              ]
            : []),
        ],
      ),
      '',
      `Run: ${run(c)}.`,
    );
    target(
      'CT follower ≥ 10,000 entries/s end to end, 50,000 roots (#19)',
      num(c.follower_entries_per_s),
      rateOk,
      link(CT),
    );
    target(
      'CT latency p99 ≤ CT_POLL_SECONDS + 2 s (3 s in the bench) (#19)',
      `${num(c.latency_ms.p99)} ms`,
      latencyOk,
      link(CT),
    );
    if (c.soak) {
      target(
        'CT memory flat over a 10-minute follow (#19)',
        `RSS low × ${c.soak.late_to_early} after the warm-up`,
        c.soak.flat,
        link(CT),
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The follower when every entry matches, over many roots against few (bench/ct-spread.mjs).
const SPREAD = 'CT matches over many roots';
const spreadSection = [];
{
  const c = newest(['ct-spread']);
  if (c) {
    const ok = c.many_over_few >= 0.8;
    spreadSection.push(
      table(
        ['figure', 'latest', 'target'],
        [
          [`every entry matching, over ${c.few.roots} roots, entries/s`, num(c.few.entries_per_s), '—'],
          [`every entry matching, over ${num(c.many.roots)} roots, entries/s`, num(c.many.entries_per_s), '—'],
          [`${num(c.many.roots)} roots ÷ ${c.few.roots}`, c.many_over_few, `≥ 0.8: ${verdict(ok)}`],
        ],
      ),
      '',
      `Medians of ${c.rounds} alternating rounds of ${num(c.entries)} entries each. Run: ${run(c)}.`,
    );
    target(
      `CT follower, matches over ${num(c.many.roots)} roots ≥ 0.8 × over ${c.few.roots} (#39)`,
      `× ${c.many_over_few}`,
      ok,
      link(SPREAD),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
const KNOWLEDGE = 'Host knowledge';
const knowledgeSection = [];
{
  const k = newest(['intel']);
  if (k) {
    const rows = [
      ['DNS resolution, names/s', k.resolution.names_per_s, '≥ 5,000', k.resolution.names_per_s >= 5000],
      ['HTTP probing, hosts/s', k.probing.hosts_per_s, '≥ 1,000', k.probing.hosts_per_s >= 1000],
      [
        `new per-host data at ${num(k.storage.hosts)} hosts, bytes a host`,
        k.storage.new_bytes_per_host,
        '≤ 250',
        k.storage.new_bytes_per_host <= 250,
      ],
    ];
    knowledgeSection.push(
      table(
        ['figure', 'latest', 'floor', 'target'],
        [
          [
            rows[0][0],
            num(rows[0][1]),
            `${num(k.resolution.floor_a_queries_per_s)} (one A query a name)`,
            `${rows[0][2]}: ${verdict(rows[0][3])}`,
          ],
          [
            rows[1][0],
            num(rows[1][1]),
            `${num(k.probing.floor_gets_per_s)} (bare https.get)`,
            `${rows[1][2]}: ${verdict(rows[1][3])}`,
          ],
          [rows[2][0], num(rows[2][1]), '—', `${rows[2][2]}: ${verdict(rows[2][3])}`],
        ],
      ),
      '',
      `Run: ${run(k)}.`,
      '',
    );
    target('DNS resolution ≥ 5,000 names/s, DNS_CONCURRENCY=200 (#20)', num(rows[0][1]), rows[0][3], link(KNOWLEDGE));
    target('HTTP probing ≥ 1,000 hosts/s, loopback HTTPS (#20)', num(rows[1][1]), rows[1][3], link(KNOWLEDGE));
    target('new per-host data ≤ 250 bytes a host at 1M (#20)', `${rows[2][1]} bytes`, rows[2][3], link(KNOWLEDGE));
  }
  // Read p99 with the new fields against the commit before host knowledge, both sides in one run (bench/ab.mjs).
  const ab = newest(['ab-knowledge-p99-intel']);
  if (ab) {
    const rows = ab.results.map((r) => [
      r.path,
      num(r.a.p99_ms),
      num(r.b.p99_ms),
      r.b_over_a_p99,
      verdict(r.b_over_a_p99 <= 1.2),
    ]);
    knowledgeSection.push(
      'Read p99 with every host carrying its knowledge, against the commit before host knowledge, both running at once\n' +
        `on one copy of the data (\`node bench/ab.mjs\`, A \`${short(ab.a.head)}\`, B \`${short(ab.b.head)}\`):`,
      '',
      table(['path', 'A p99 ms', 'B p99 ms', 'B ÷ A', 'target ≤ 1.2'], rows),
      '',
      `Run: ${run(ab)}, ${ab.rounds} alternating rounds of ${ab.seconds} s (medians).`,
    );
    const over = ab.results.filter((r) => r.b_over_a_p99 > 1.2);
    const p99s = ab.results.map((r) => r.b_over_a_p99);
    target(
      'read endpoints’ p99 with the new fields ≤ 1.2 × before them (#20)',
      `${ab.results.length - over.length} of ${ab.results.length} host-row paths; p99 × ${Math.min(...p99s)}–${Math.max(...p99s)}`,
      over.length === 0,
      link(KNOWLEDGE),
    );
  }
}

// The demo seed (#40): bench/seed-demo.mjs, the built CLI's seed-demo of 1M hosts on the server, median of its runs.
const SEED = 'Demo seed';
const seedSection = [];
{
  const r = files.get('seed-demo');
  if (r) {
    seedSection.push(
      table(
        ['run', 'hosts / roots', 'seconds', 'database bytes a host'],
        r.runs.map((x, i) => [i + 1, `${num(x.hosts)} / ${num(r.roots)}`, x.seconds, num(x.database_bytes_a_host)]),
      ),
      '',
      `Median ${r.median_seconds} s (${run({ ...r, name: 'seed-demo' })}).`,
    );
    target(
      `seed-demo of ${num(r.hosts)} hosts < ${r.target_seconds} s on the server (#40)`,
      `median ${r.median_seconds} s of ${r.runs.length} runs`,
      r.median_seconds < r.target_seconds,
      link(SEED),
    );
  }
}

// Permutations (#41): bench/permute.mjs, the permute source and the peers (dnsgen, altdns) on the same seeds and the
// same BIND 9, queries counted at the server.
const PERMUTE = 'Permutation discovery';
const permuteSection = [];
{
  const r = files.get('permute');
  if (r) {
    const c = r.contenders;
    const hidden = c.permute.hidden_total;
    const equal = (x) => x.at_equal_queries ?? null;
    permuteSection.push(
      `\`${short(r.commit)}\`, ${day({ at: r.at })}, \`results/permute.json\`, seed ${r.seed}: ${num(hidden)} hidden hosts over ` +
        `${r.world.length} roots, served by ${r.server.split(' (')[0]}.`,
      '',
      table(
        ['contender', 'queries', 'hidden found', 'precision', 'at permute’s queries: queries, hidden found'],
        Object.entries(c).map(([name, x]) => [
          name,
          num(x.queries),
          `${num(x.hidden_found)} (${Math.round((100 * x.hidden_found) / hidden)} %)`,
          `${+(100 * x.precision).toFixed(1)} %`,
          equal(x) ? `${num(equal(x).queries)}, ${num(equal(x).hidden_found)}` : '—',
        ]),
      ),
      '',
      table(
        ['target', 'value', 'result'],
        Object.entries(r.targets).map(([name, t]) => [
          name.replaceAll('_', ' '),
          typeof t.value === 'number' ? num(+t.value.toFixed(3)) : `× ${num(+t.ratio.toFixed(2))} of ${t.peer}`,
          verdict(t.holds),
        ]),
      ),
    );
    const t = r.targets;
    target(
      'permute: hidden hosts ≥ 1.5 × the better peer at the same queries, 100 % precision (#41)',
      `× ${t.hidden_vs_better_peer_at_equal_queries?.ratio.toFixed(2) ?? '—'} of ${t.hidden_vs_better_peer_at_equal_queries?.peer ?? '—'}; precision ${c.permute.precision}`,
      Boolean(t.hidden_vs_better_peer_at_equal_queries?.holds) && t.precision.holds,
      link(PERMUTE),
    );
  }
}

// Host rows lean by default, knowledge on request (#40): bench/lean.mjs, the host-row paths on this build, the build
// before host knowledge and the independent floor, default rows and rows with fields, in one run. Ratios are the
// median of each round's ratio.
const LEAN = 'Lean host rows';
const leanSection = [];
{
  const leanRuns = [...files.entries()]
    .filter(([name]) => /^lean-\d+-intel(-\d+)?$/.test(name))
    .map(([name, r]) => ({ name, ...r }))
    .sort((a, b) => b.at.localeCompare(a.at));
  const l = leanRuns[0];
  if (l) {
    // Every run of the newest one's build, seed, fields and build before: each set's rounds pooled, its figures the
    // medians of all of them and its ratios the median of each round's.
    const runs = leanRuns.filter(
      (r) => r.commit === l.commit && r.hosts === l.hosts && r.fields === l.fields && r.before.head === l.before.head,
    );
    const mid = (xs) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const half = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
    };
    // A run cut short (complete: false) gives the sets it measured.
    const names = [...new Set(runs.flatMap((r) => r.results.map((x) => x.set)))];
    const sets = names.map((set) => {
      const of = runs.map((r) => r.results.find((x) => x.set === set)).filter(Boolean);
      const paths = of[0].paths;
      const rounds = of.flatMap((x) => x.rounds);
      const figures = (label) => ({
        rps: Math.round(mid(rounds.map((m) => m[label].rps))),
        p99: mid(rounds.map((m) => m[label].p99)),
      });
      const paired = (a, b, figure) =>
        +mid(rounds.map((m) => m[a][figure] / Math.max(m[b][figure], figure === 'p99' ? 1 : 0))).toFixed(3);
      const sum = (key) => of.reduce((n, x) => n + x.check[key], 0);
      return {
        set,
        paths,
        check: {
          rows: sum('rows'),
          key_mismatches: sum('key_mismatches'),
          value_mismatches: sum('value_mismatches'),
          failed: sum('failed'),
        },
        default: {
          service: figures('service'),
          before: figures('before'),
          floor: figures('floor'),
          rps_to_floor: paired('service', 'floor', 'rps'),
          p99_to_before: paired('service', 'before', 'p99'),
        },
        fields: {
          service: figures('service_fields'),
          floor: figures('floor_fields'),
          rps_to_floor: paired('service_fields', 'floor_fields', 'rps'),
          p99_to_floor: paired('service_fields', 'floor_fields', 'p99'),
        },
      };
    });
    const checked = (x) =>
      `${num(x.check.rows)}, ${num(x.check.key_mismatches + x.check.value_mismatches + x.check.failed)}`;
    const rowsOk = (x) => x.default.rps_to_floor >= 1;
    const p99Ok = (x) => x.default.p99_to_before <= 1.2;
    const fieldsOk = (x) => x.fields.rps_to_floor >= 1 && x.fields.p99_to_floor <= 1;
    leanSection.push(
      `Default rows: this build (\`${short(l.commit)}\`), the build before host knowledge (\`${short(l.before.head)}\`)\n` +
        'and the independent floor. Rows checked: the service’s rows and the floor’s on every path of the set, default\n' +
        'and with the fields, and how many of them differed in their keys or their values.',
      '',
      table(
        [
          'path set',
          'paths',
          'rows checked, differing',
          'req/s',
          'floor req/s',
          '÷ floor',
          'target ≥ 1.0',
          'p99 ms',
          'floor p99 ms',
          'before p99 ms',
          'p99 ÷ before',
          'target ≤ 1.2',
        ],
        sets.map((x) => [
          x.set,
          x.paths,
          checked(x),
          num(x.default.service.rps),
          num(x.default.floor.rps),
          x.default.rps_to_floor,
          verdict(rowsOk(x)),
          num(x.default.service.p99),
          num(x.default.floor.p99),
          num(x.default.before.p99),
          x.default.p99_to_before,
          verdict(p99Ok(x)),
        ]),
      ),
      '',
      `Rows with \`fields=${l.fields}\`, against the independent floor with the same fields:`,
      '',
      table(
        ['path set', 'req/s', 'floor req/s', '÷ floor', 'p99 ms', 'floor p99 ms', 'p99 ÷ floor', 'target'],
        sets.map((x) => [
          x.set,
          num(x.fields.service.rps),
          num(x.fields.floor.rps),
          x.fields.rps_to_floor,
          num(x.fields.service.p99),
          num(x.fields.floor.p99),
          x.fields.p99_to_floor,
          verdict(fieldsOk(x)),
        ]),
      ),
      '',
      `${runs.length === 1 ? 'Run' : 'Runs'}: ` +
        runs
          .map((r) => `${run(r)}${r.complete === false ? `, cut short after ${r.results.length} set(s)` : ''}`)
          .join('; ') +
        `; ${num(l.hosts)} hosts over ${num(l.roots)} roots, every host with its knowledge; ${l.rounds} alternating ` +
        `rounds a run of ${l.seconds} s, ${l.connections} connections, a set's rounds pooled over the runs (medians ` +
        'of every round; ratios: the median of each round’s).',
    );
    const range = (xs) => (Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}–${Math.max(...xs)}`);
    const count = (ok) => `${sets.filter(ok).length} of ${sets.length} path sets`;
    target(
      'default host rows ≥ 1.0 × the independent floor’s req/s (#40)',
      `${count(rowsOk)}; × ${range(sets.map((x) => x.default.rps_to_floor))}`,
      sets.every(rowsOk),
      link(LEAN),
    );
    target(
      `default host rows’ p99 ≤ 1.2 × the build before host knowledge (#40; \`${short(l.before.head)}\`)`,
      `${count(p99Ok)}; p99 × ${range(sets.map((x) => x.default.p99_to_before))}`,
      sets.every(p99Ok),
      link(LEAN),
    );
    target(
      `rows with \`fields=${l.fields}\` ≥ 1.0 × the floor with them, p99 ≤ its p99 (#40)`,
      `${count(fieldsOk)}; × ${range(sets.map((x) => x.fields.rps_to_floor))}, p99 × ${range(sets.map((x) => x.fields.p99_to_floor))}`,
      sets.every(fieldsOk),
      link(LEAN),
    );
  }
}

const costSection = [];
{
  const k = newest(['knowledge-cost']);
  if (k) {
    costSection.push(
      table(
        [
          'page of rows',
          'service ms (median)',
          'bytes',
          'rows alone ms',
          'bytes',
          'rows + a knowledge read ms',
          'bytes',
        ],
        Object.entries(k.results).map(([page, r]) => [
          page,
          r.service.median_ms,
          num(r.service.bytes),
          r.page.median_ms,
          num(r.page.bytes),
          r.read.median_ms,
          num(r.read.bytes),
        ]),
      ),
      '',
      `Run: ${run(k)}, ${k.rounds} interleaved runs each. No target: it says where a host-row page’s cost goes.`.replace(
        ' No target',
        '\nNo target',
      ),
    );
  }
}

const hidingSection = [];
{
  const h = newest(['hiding-cost']);
  if (h) {
    hidingSection.push(
      table(
        ['feed page', 'rows', 'service ms (median)', 'without the check ms', 'service ÷ without', 'bits on the row ms'],
        Object.entries(h.reads).map(([page, r]) => [
          page,
          num(r.service.rows),
          r.service.median_ms,
          r.unhidden.median_ms,
          +(r.service.median_ms / r.unhidden.median_ms).toFixed(2),
          r.bits.median_ms,
        ]),
      ),
      '',
      `An exclusion rule moving ${num(h.rule.moved)} hosts out of scope, its writes alone: host_intel ` +
        `${num(h.rule.intel_ms)} ms; host_intel and each host’s bits ${num(h.rule.bits_ms)} ms (medians of 3).`,
      '',
      `Run: ${run(h)}, ${h.rounds} interleaved runs each. No target: it says what the p99 target against the build ` +
        'before host knowledge measures on the feeds.',
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
const RULES = 'Exclusion rules';
const rulesSection = [];
{
  const r = newest(['scope-rules']);
  if (r) {
    const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
    const ok = Math.max(r.median_ms.add, r.median_ms.remove) < 10_000;
    rulesSection.push(
      table(
        ['case', 'median', '÷ floor', 'target < 10 s'],
        [
          [
            `add a rule: ${num(r.moved)} hosts move out of scope`,
            s(r.median_ms.add),
            r.ratio_to_floor.add,
            verdict(r.median_ms.add < 10_000),
          ],
          [
            'remove it: the same hosts move back',
            s(r.median_ms.remove),
            r.ratio_to_floor.remove,
            verdict(r.median_ms.remove < 10_000),
          ],
          ['add a rule that names no host', s(r.median_ms.none), r.ratio_to_floor.none, '—'],
          ['floor: the hand-written pass', s(r.median_ms.floor), 1, '—'],
        ],
      ),
      '',
      `Run: ${run(r)}, ${num(r.hosts)} hosts in one domain, medians of ${r.runs} runs.`,
    );
    target(
      'an exclusion rule added or removed re-evaluates 1M hosts in < 10 s (#21)',
      `add ${s(r.median_ms.add)}, remove ${s(r.median_ms.remove)}`,
      ok,
      link(RULES),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
const DASHBOARD = 'Dashboard pages';
const dashboardSection = [];
{
  const d = newest([...files.keys()].filter((n) => n.startsWith('dashboard-')));
  if (d) {
    const pages = Object.entries(d.pages);
    dashboardSection.push(
      table(
        ['page', 'p50 ms', 'p95 ms', 'its API requests, p95 ms', 'ratio', 'target p95 ≤ 300 ms'],
        pages.map(([page, r]) => [
          page,
          r.p50_ms,
          r.p95_ms,
          r.api_floor_p95_ms,
          r.p95_ratio_to_floor,
          verdict(r.p95_ms <= 300),
        ]),
      ),
      '',
      table(
        ['script', 'bytes', 'as sent (br)'],
        Object.entries(d.scripts).map(([path, s]) => [`\`${path}\``, num(s.bytes), num(s.sent_bytes)]),
      ),
      '',
      `Run: ${run(d)}, ${num(d.hosts)} hosts, ${d.requests_per_page} requests a page, one at a time.`,
    );
    const p95s = pages.map(([, r]) => r.p95_ms);
    target(
      'every dashboard page’s HTML ≤ 300 ms p95 at 1M hosts (#22)',
      `p95 ${Math.min(...p95s)}–${Math.max(...p95s)} ms`,
      p95s.every((x) => x <= 300),
      link(DASHBOARD),
    );
    target(
      '≤ 100 KB of script on any page, compressed (#22)',
      `${(d.script_total_sent_bytes / 1024).toFixed(1)} KB as sent`,
      d.script_total_sent_bytes <= 100 * 1024,
      link(DASHBOARD),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The redesign (#38): the build before it against the build after, on the host-row paths and search. Every run of
// it (ab-redesign*.json) counts: each path's ratio is the median of every round's B ÷ A (measured back to back).
{
  const runs = [...files.entries()].filter(([name]) => name.startsWith('ab-redesign')).map(([, r]) => r);
  if (runs.length) {
    const ratios = new Map();
    for (const r of runs) {
      for (const x of r.results) {
        const each = x.b.rps_runs.map((b, i) => b / x.a.rps_runs[i]);
        ratios.set(x.path, [...(ratios.get(x.path) ?? []), ...each]);
      }
    }
    const medians = [...ratios.values()].map((xs) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const half = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
    });
    const worst = +Math.min(...medians).toFixed(3);
    const heads = [...new Set(runs.map((r) => `\`${short(r.a.head)}\` → \`${short(r.b.head)}\``))].join(', ');
    target(
      `The redesign, old build → new, host-row paths and search ≥ 0.95 × req/s (#38; ${heads})`,
      `worst of ${ratios.size} paths × ${worst} (median of each round's ratio, ${runs.length} runs)`,
      worst >= 0.95,
      link('Two builds against each other'),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The tracing tools: their files, one line each.
const abRows = [...files.entries()]
  .filter(([name]) => name.startsWith('ab-'))
  .map(([name, r]) => ({ name, ...r }))
  .sort((a, b) => a.at.localeCompare(b.at))
  .map((r) => {
    const rps = r.results.map((x) => x.b_over_a_rps);
    const paired = r.results.map((x) => x.b_over_a_rps_paired).filter((x) => x !== undefined);
    const p99 = r.results.map((x) => x.b_over_a_p99);
    const range = (xs) => (Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}–${Math.max(...xs)}`);
    return [
      `\`results/${r.name}.json\``,
      day(r),
      `\`${short(r.a.head)}\` → \`${short(r.b.head)}\``,
      `${num(r.hosts)} / ${num(r.roots ?? DEFAULT_ROOTS)}${r.intel ? ', knowledge' : ''}`,
      r.results.length,
      range(rps),
      paired.length ? range(paired) : '—',
      range(p99),
    ];
  });
const cpuRows = [...files.entries()]
  .filter(([, r]) => r.benchmark === 'cpu')
  .map(([name, r]) => ({ name, ...r }))
  .sort((a, b) => a.at.localeCompare(b.at))
  .flatMap((r) =>
    r.results.map((x) => [
      x.measured,
      num(r.roots ?? DEFAULT_ROOTS),
      `${num(x.service.total_us)} / ${num(x.independent_floor.total_us)}`,
      x.cpu_ratio,
      x.rps_ratio,
      `\`${short(r.commit)}\`, \`results/${r.name}.json\``,
    ]),
  );

// ---------------------------------------------------------------------------------------------------------------
const machines = [
  ...new Set(
    [...files.values()].map(
      (r) => r.machine && `${r.machine.cpus} cores, ${r.machine.memory_gib} GiB, Node ${r.machine.node}`,
    ),
  ),
].filter(Boolean);
const sections = {
  machines:
    `Machine${machines.length === 1 ? '' : 's'} of these results: ${machines.join('; ')}; shared and noisy, as\n` +
    'autocannon, PostgreSQL and the service share the cores.',
  targets: table(['target', 'latest', 'result', 'section'], targets),
  api: apiSection,
  growth: growthSection,
  conditional: conditionalSection,
  export: exportSection,
  persistence: persistenceSection,
  soak: soakSection,
  ct: ctSection,
  spread: spreadSection,
  knowledge: knowledgeSection,
  lean: leanSection,
  permute: permuteSection,
  seed: seedSection,
  cost: costSection,
  hiding: hidingSection,
  rules: rulesSection,
  dashboard: dashboardSection,
  ab: table(
    ['results file', 'day', 'A → B', 'hosts / roots', 'paths', 'B ÷ A req/s', 'paired, per round', 'B ÷ A p99'],
    abRows,
  ),
  cpu: table(
    ['measured', 'roots', 'CPU µs a request, service / floor', 'CPU ÷ floor', 'req/s ÷ floor', 'run'],
    cpuRows,
  ),
};
const template = readFileSync(new URL('./benchmarks.template.md', import.meta.url), 'utf8');
const page = template.replace(/^<!--[\s\S]*?-->\n+/, '').replace(/\{\{(\w+)\}\}/g, (_, name) => {
  if (!(name in sections)) throw new Error(`benchmarks.template.md: no figures for {{${name}}}`);
  return [sections[name]].flat().join('\n').trim();
});

const formatted = await prettier.format(page, { ...(await prettier.resolveConfig(PAGE)), filepath: PAGE });
if (process.argv.includes('--check')) {
  if (!existsSync(PAGE) || readFileSync(PAGE, 'utf8') !== formatted) {
    console.error('docs/benchmarks.md is not what bench/results/*.json make: run `node bench/report.mjs`.');
    process.exit(1);
  }
} else {
  writeFileSync(PAGE, formatted);
  console.log(table(['target', 'latest', 'result', 'section'], targets));
  console.log('\nwrote docs/benchmarks.md');
}
