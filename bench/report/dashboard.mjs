import { files, link, newest, num, run, table, target, verdict } from './common.mjs';

const DASHBOARD = 'Dashboard pages';
export const dashboardSection = [];
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
