import { link, newest, num, run, table, target, verdict } from './common.mjs';

const PERSISTENCE = 'Scan persistence';
export const persistenceSection = [];
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
