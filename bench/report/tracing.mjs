// The redesign (#38): the build before it against the build after, on the host-row paths and search. Every run of
// it (ab-redesign*.json) counts: each path's ratio is the median of every round's B ÷ A (measured back to back).
import { DEFAULT_ROOTS, day, files, link, num, short, target, table } from './common.mjs';

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
      `\`${short(r.a.head)}\` → \`${short(r.b.head)}\`${r.b.node_options ? ` with \`${r.b.node_options}\`` : ''}`,
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

export const abSection = table(
  ['results file', 'day', 'A → B', 'hosts / roots', 'paths', 'B ÷ A req/s', 'paired, per round', 'B ÷ A p99'],
  abRows,
);
export const cpuSection = table(
  ['measured', 'roots', 'CPU µs a request, service / floor', 'CPU ÷ floor', 'req/s ÷ floor', 'run'],
  cpuRows,
);
