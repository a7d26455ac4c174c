// Permutations (#41): bench/permute.mjs, the permute source and the peers (dnsgen, altdns) on the same seeds and the
// same BIND 9, queries counted at the server.
import { day, files, link, num, short, table, target, verdict } from './common.mjs';

const PERMUTE = 'Permutation discovery';
export const permuteSection = [];
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
