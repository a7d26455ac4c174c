import { DEFAULT_ROOTS, files, link, num, run, seed, table, target, verdict } from './common.mjs';

const CONDITIONAL = 'Conditional requests and cached aggregates';
export const conditionalSection = [];
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
