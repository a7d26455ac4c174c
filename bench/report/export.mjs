import { files, link, num, run, table, target, verdict } from './common.mjs';

const EXPORT = 'Export';
export const exportSection = [];
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
