// What every section of docs/benchmarks.md reads: the results files, the cells' formats, and the targets table, which
// each section (bench/report/*.mjs, imported by bench/report.mjs in the page's order) fills in as it is evaluated.
import { readFileSync, readdirSync } from 'node:fs';

const RESULTS = new URL('../results/', import.meta.url);
export const DEFAULT_ROOTS = 2000; // what the bench seeds when BENCH_ROOTS is not given (harness.mjs)

/** Every results file, by name without `.json`. */
export const files = new Map(
  readdirSync(RESULTS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(new URL(f, RESULTS), 'utf8'))]),
);
export const newest = (names) =>
  names
    .filter((n) => files.has(n))
    .map((n) => ({ name: n, ...files.get(n) }))
    .sort((a, b) => b.at.localeCompare(a.at))[0];

// Cells: short, numbers as people read them.
export const num = (x) =>
  typeof x === 'number' ? (Number.isInteger(x) ? x.toLocaleString('en') : String(x)) : (x ?? '—');
export const ratio = (a, b) => (a && b ? +(a / b).toFixed(2) : '—');
export const verdict = (ok) => (ok ? 'met' : '**not met**');
export const day = (r) => r.at.slice(0, 10);
export const short = (commit) =>
  /^[0-9a-f]{7,40}(\+changes)?$/.test(commit ?? '') ? commit.replace(/^([0-9a-f]{7})[0-9a-f]*/, '$1') : 'unknown';
export const run = (r) => `\`${short(r.commit)}\`, ${day(r)}, \`results/${r.name}.json\``;
export const table = (head, rows) =>
  [head, head.map(() => '---'), ...rows]
    .map((cells) => `| ${cells.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`)
    .join('\n');
export const seed = (hosts, roots) => `${num(hosts)} hosts over ${num(roots)} roots`;

/** The targets table: one row per target, filled in by each benchmark's section. */
export const targets = [];
export const target = (what, latest, ok, section) =>
  targets.push([what, latest, ok === null ? 'not judged' : verdict(ok), section]);
export const link = (title) =>
  `[${title}](#${title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-')})`;
