// Host rows lean by default, knowledge on request (#40): bench/lean.mjs, the host-row paths on this build, the build
// before host knowledge and the independent floor, default rows and rows with fields, in one run. Ratios are the
// median of each round's ratio.
import { files, link, newest, num, run, short, table, target, verdict } from './common.mjs';

const LEAN = 'Lean host rows';
export const leanSection = [];
{
  const leanRuns = [...files.entries()]
    .filter(([name]) => /^lean-\d+-intel(-\d+)?$/.test(name))
    .map(([name, r]) => ({ name, ...r }))
    .sort((a, b) => b.at.localeCompare(a.at));
  const l = leanRuns[0];
  if (l) {
    // Every run of the newest one's build, seed, fields and build before: each set's rounds pooled, its figures the
    // medians of all of them and its ratios the median of each round's.
    const runs = leanRuns.filter(
      (r) => r.commit === l.commit && r.hosts === l.hosts && r.fields === l.fields && r.before.head === l.before.head,
    );
    const mid = (xs) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const half = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
    };
    // A run cut short (complete: false) gives the sets it measured.
    const names = [...new Set(runs.flatMap((r) => r.results.map((x) => x.set)))];
    const sets = names.map((set) => {
      const of = runs.map((r) => r.results.find((x) => x.set === set)).filter(Boolean);
      const paths = of[0].paths;
      const rounds = of.flatMap((x) => x.rounds);
      const figures = (label) => ({
        rps: Math.round(mid(rounds.map((m) => m[label].rps))),
        p99: mid(rounds.map((m) => m[label].p99)),
      });
      const paired = (a, b, figure) =>
        +mid(rounds.map((m) => m[a][figure] / Math.max(m[b][figure], figure === 'p99' ? 1 : 0))).toFixed(3);
      const sum = (key) => of.reduce((n, x) => n + x.check[key], 0);
      return {
        set,
        paths,
        check: {
          rows: sum('rows'),
          key_mismatches: sum('key_mismatches'),
          value_mismatches: sum('value_mismatches'),
          failed: sum('failed'),
        },
        default: {
          service: figures('service'),
          before: figures('before'),
          floor: figures('floor'),
          rps_to_floor: paired('service', 'floor', 'rps'),
          p99_to_before: paired('service', 'before', 'p99'),
        },
        fields: {
          service: figures('service_fields'),
          floor: figures('floor_fields'),
          rps_to_floor: paired('service_fields', 'floor_fields', 'rps'),
          p99_to_floor: paired('service_fields', 'floor_fields', 'p99'),
        },
      };
    });
    const checked = (x) =>
      `${num(x.check.rows)}, ${num(x.check.key_mismatches + x.check.value_mismatches + x.check.failed)}`;
    const rowsOk = (x) => x.default.rps_to_floor >= 1;
    const p99Ok = (x) => x.default.p99_to_before <= 1.2;
    const fieldsOk = (x) => x.fields.rps_to_floor >= 1 && x.fields.p99_to_floor <= 1;
    leanSection.push(
      `Default rows: this build (\`${short(l.commit)}\`), the build before host knowledge (\`${short(l.before.head)}\`)\n` +
        'and the independent floor. Rows checked: the service’s rows and the floor’s on every path of the set, default\n' +
        'and with the fields, and how many of them differed in their keys or their values.',
      '',
      table(
        [
          'path set',
          'paths',
          'rows checked, differing',
          'req/s',
          'floor req/s',
          '÷ floor',
          'target ≥ 1.0',
          'p99 ms',
          'floor p99 ms',
          'before p99 ms',
          'p99 ÷ before',
          'target ≤ 1.2',
        ],
        sets.map((x) => [
          x.set,
          x.paths,
          checked(x),
          num(x.default.service.rps),
          num(x.default.floor.rps),
          x.default.rps_to_floor,
          verdict(rowsOk(x)),
          num(x.default.service.p99),
          num(x.default.floor.p99),
          num(x.default.before.p99),
          x.default.p99_to_before,
          verdict(p99Ok(x)),
        ]),
      ),
      '',
      `Rows with \`fields=${l.fields}\`, against the independent floor with the same fields:`,
      '',
      table(
        ['path set', 'req/s', 'floor req/s', '÷ floor', 'p99 ms', 'floor p99 ms', 'p99 ÷ floor', 'target'],
        sets.map((x) => [
          x.set,
          num(x.fields.service.rps),
          num(x.fields.floor.rps),
          x.fields.rps_to_floor,
          num(x.fields.service.p99),
          num(x.fields.floor.p99),
          x.fields.p99_to_floor,
          verdict(fieldsOk(x)),
        ]),
      ),
      '',
      `${runs.length === 1 ? 'Run' : 'Runs'}: ` +
        runs
          .map((r) => `${run(r)}${r.complete === false ? `, cut short after ${r.results.length} set(s)` : ''}`)
          .join('; ') +
        `; ${num(l.hosts)} hosts over ${num(l.roots)} roots, every host with its knowledge; ${l.rounds} alternating ` +
        `rounds a run of ${l.seconds} s, ${l.connections} connections, a set's rounds pooled over the runs (medians ` +
        'of every round; ratios: the median of each round’s).',
    );
    const range = (xs) => (Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}–${Math.max(...xs)}`);
    const count = (ok) => `${sets.filter(ok).length} of ${sets.length} path sets`;
    target(
      'default host rows ≥ 1.0 × the independent floor’s req/s (#40)',
      `${count(rowsOk)}; × ${range(sets.map((x) => x.default.rps_to_floor))}`,
      sets.every(rowsOk),
      link(LEAN),
    );
    target(
      `default host rows’ p99 ≤ 1.2 × the build before host knowledge (#40; \`${short(l.before.head)}\`)`,
      `${count(p99Ok)}; p99 × ${range(sets.map((x) => x.default.p99_to_before))}`,
      sets.every(p99Ok),
      link(LEAN),
    );
    target(
      `rows with \`fields=${l.fields}\` ≥ 1.0 × the floor with them, p99 ≤ its p99 (#40)`,
      `${count(fieldsOk)}; × ${range(sets.map((x) => x.fields.rps_to_floor))}, p99 × ${range(sets.map((x) => x.fields.p99_to_floor))}`,
      sets.every(fieldsOk),
      link(LEAN),
    );
  }
}

export const costSection = [];
{
  const k = newest(['knowledge-cost']);
  if (k) {
    costSection.push(
      table(
        [
          'page of rows',
          'service ms (median)',
          'bytes',
          'rows alone ms',
          'bytes',
          'rows + a knowledge read ms',
          'bytes',
        ],
        Object.entries(k.results).map(([page, r]) => [
          page,
          r.service.median_ms,
          num(r.service.bytes),
          r.page.median_ms,
          num(r.page.bytes),
          r.read.median_ms,
          num(r.read.bytes),
        ]),
      ),
      '',
      `Run: ${run(k)}, ${k.rounds} interleaved runs each. No target: it says where a host-row page’s cost goes.`.replace(
        ' No target',
        '\nNo target',
      ),
    );
  }
}

export const hidingSection = [];
{
  const h = newest(['hiding-cost']);
  if (h) {
    hidingSection.push(
      table(
        ['feed page', 'rows', 'service ms (median)', 'without the check ms', 'service ÷ without', 'bits on the row ms'],
        Object.entries(h.reads).map(([page, r]) => [
          page,
          num(r.service.rows),
          r.service.median_ms,
          r.unhidden.median_ms,
          +(r.service.median_ms / r.unhidden.median_ms).toFixed(2),
          r.bits.median_ms,
        ]),
      ),
      '',
      `An exclusion rule moving ${num(h.rule.moved)} hosts out of scope, its writes alone: host_intel ` +
        `${num(h.rule.intel_ms)} ms; host_intel and each host’s bits ${num(h.rule.bits_ms)} ms (medians of 3).`,
      '',
      `Run: ${run(h)}, ${h.rounds} interleaved runs each. No target: it says what the p99 target against the build ` +
        'before host knowledge measures on the feeds.',
    );
  }
}
