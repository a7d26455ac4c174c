import { files, link, newest, num, run, table, target, verdict } from './common.mjs';

const CT = 'CT log follower';
export const ctSection = [];
{
  const c = newest([...files.keys()].filter((n) => n.startsWith('ct-follow')));
  if (c) {
    const rateOk = c.follower_entries_per_s >= 10_000;
    const latencyOk = c.latency_ms.p99 <= 3000;
    ctSection.push(
      table(
        ['figure', 'latest', 'target'],
        [
          [
            `follower end to end, entries/s (${num(c.roots)} roots)`,
            num(c.follower_entries_per_s),
            `≥ 10,000: ${verdict(rateOk)}`,
          ],
          ['floor: a bare client reading the log, entries/s', num(c.floor_entries_per_s), '—'],
          ['follower ÷ floor', c.ratio_to_floor, '—'],
          ['parser alone, entries/s', num(c.parser.entryNames_per_s), '—'],
          ['crypto.X509Certificate, entries/s', num(c.parser.x509certificate_per_s), '—'],
          [
            `latency p50 / p99 (${c.latency_ms.samples} certificates)`,
            `${num(c.latency_ms.p50)} / ${num(c.latency_ms.p99)} ms`,
            `p99 ≤ 3,000 ms: ${verdict(latencyOk)}`,
          ],
          ...(c.soak
            ? [
                [
                  `RSS low over a ${c.soak.seconds / 60}-minute follow at ${num(c.soak.rate)} entries/s`,
                  `${c.soak.rss_mb_low_after_warm_up} → ${c.soak.rss_mb_low_last_two_minutes} MB (× ${c.soak.late_to_early}), ` +
                    `peak ${c.soak.rss_mb_peak} MB, ${num(c.soak.lag_at_end)} behind at the end`,
                  `≤ 1.1 ×: ${verdict(c.soak.flat)}`,
                ],
              ]
            : []),
        ],
      ),
      '',
      `Run: ${run(c)}.`,
    );
    target(
      'CT follower ≥ 10,000 entries/s end to end, 50,000 roots (#19)',
      num(c.follower_entries_per_s),
      rateOk,
      link(CT),
    );
    target(
      'CT latency p99 ≤ CT_POLL_SECONDS + 2 s (3 s in the bench) (#19)',
      `${num(c.latency_ms.p99)} ms`,
      latencyOk,
      link(CT),
    );
    if (c.soak) {
      target(
        'CT memory flat over a 10-minute follow (#19)',
        `RSS low × ${c.soak.late_to_early} after the warm-up`,
        c.soak.flat,
        link(CT),
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The follower when every entry matches, over many roots against few (bench/ct-spread.mjs).
const SPREAD = 'CT matches over many roots';
export const spreadSection = [];
{
  const c = newest(['ct-spread']);
  if (c) {
    const ok = c.many_over_few >= 0.8;
    spreadSection.push(
      table(
        ['figure', 'latest', 'target'],
        [
          [`every entry matching, over ${c.few.roots} roots, entries/s`, num(c.few.entries_per_s), '—'],
          [`every entry matching, over ${num(c.many.roots)} roots, entries/s`, num(c.many.entries_per_s), '—'],
          [`${num(c.many.roots)} roots ÷ ${c.few.roots}`, c.many_over_few, `≥ 0.8: ${verdict(ok)}`],
        ],
      ),
      '',
      `Medians of ${c.rounds} alternating rounds of ${num(c.entries)} entries each. Run: ${run(c)}.`,
    );
    target(
      `CT follower, matches over ${num(c.many.roots)} roots ≥ 0.8 × over ${c.few.roots} (#39)`,
      `× ${c.many_over_few}`,
      ok,
      link(SPREAD),
    );
  }
}
