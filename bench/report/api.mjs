// JSON read endpoints: the latest measurement of each endpoint, per seed (hosts, roots). Files: api-<hosts>.json,
// api-<hosts>-<roots>roots.json, and traces of a few endpoints (BENCH_ONLY) under other suffixes. Runs with host
// knowledge (-intel) are another comparison and stay out.
import { DEFAULT_ROOTS, files, link, num, ratio, run, seed, table, target, verdict } from './common.mjs';

const API = 'JSON read endpoints';
const apiRuns = [...files.entries()]
  .filter(([name, r]) => r.benchmark === 'api' && !name.includes('intel'))
  .map(([name, r]) => ({ name, ...r, roots: r.roots ?? DEFAULT_ROOTS }));
const seeds = [...new Set(apiRuns.map((r) => `${r.hosts}/${r.roots}`))]
  .map((s) => s.split('/').map(Number))
  .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
export const apiSection = [];
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
export const growthSection = [];
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
