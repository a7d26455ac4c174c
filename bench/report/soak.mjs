import { link, newest, num, run, table, target, verdict } from './common.mjs';

const SOAK = 'Soak';
export const soakSection = [];
{
  const s = newest(['soak']);
  if (s) {
    const errors = s.errors + s.timeouts + s.non_2xx;
    soakSection.push(
      table(
        [
          'requests',
          'req/s',
          'p50',
          'p99',
          'errors',
          'scans finished / failed',
          'RSS low, first 20 s → last 20 s',
          'peak',
          'target',
        ],
        [
          [
            num(s.requests),
            num(Math.round(s.rps)),
            `${s.p50} ms`,
            `${num(s.p99)} ms`,
            num(errors),
            `${s.scans.finished} / ${s.scans.failed}`,
            `${s.rss_mb.first_20s_low} → ${s.rss_mb.last_20s_low} MB (× ${s.memory_growth_ratio})`,
            `${s.rss_mb.peak} MB`,
            verdict(s.pass),
          ],
        ],
      ),
      '',
      `Run: ${run(s)}: ${s.seconds} s at ${s.connections} connections over ${s.endpoints} paths,\n` +
        `after ${s.warmup_seconds} s of warm-up.`,
    );
    target(
      `soak: ${s.seconds} s, ${s.connections} connections, scans running: zero errors, no memory growth (#8)`,
      `${num(errors)} errors in ${num(s.requests)} requests; RSS low × ${s.memory_growth_ratio}`,
      s.pass,
      link(SOAK),
    );
  }
}
