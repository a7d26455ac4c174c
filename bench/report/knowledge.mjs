import { link, newest, num, run, short, table, target, verdict } from './common.mjs';

const KNOWLEDGE = 'Host knowledge';
export const knowledgeSection = [];
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
