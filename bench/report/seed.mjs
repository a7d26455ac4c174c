// The demo seed (#40): bench/seed-demo.mjs, the built CLI's seed-demo of 1M hosts on the server, median of its runs.
import { files, link, num, run, table, target } from './common.mjs';

const SEED = 'Demo seed';
export const seedSection = [];
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
