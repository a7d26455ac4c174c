import { link, newest, num, run, table, target, verdict } from './common.mjs';

const RULES = 'Exclusion rules';
export const rulesSection = [];
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
