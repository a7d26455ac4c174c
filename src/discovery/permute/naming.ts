/**
 * What a root's known hosts say about its naming, and the names that follow from it: the candidates of the permute
 * source, ranked by how likely the learned patterns make them. Pure and synchronous: no I/O, linear passes over
 * the known names, no regular expression run on them (names come from certificates and answers: outside text).
 *
 * A known host `api-staging-2.eu.example.com` under the root `example.com` is read as its first label
 * (`api-staging-2`) in its zone (`eu.example.com`). The first label splits into parts on `-` (`api`, `staging`,
 * `2`), each part into letter and digit runs (`web01`: `web`, `01`). What is learned:
 * - the words each position of a label takes, with how often (`api` first, `staging` second…);
 * - numbered series: a label with a number (`api-2`) in a skeleton (`api-#`) that holds others (`api-1`, `api-4`);
 * - environment words (dev, staging, qa, uat, prod…), which stand for each other;
 * - the zones under the root that known hosts reveal (`x.dev.example.com` → `dev.example.com`), to a depth.
 */

/** The patterns a candidate comes from; each one's hit rate is kept per root and steers the next spend. */
export const PATTERNS = ['number', 'environment', 'swap', 'zone'] as const;
export type Pattern = (typeof PATTERNS)[number];

/** How much a pattern is trusted before its hit rate is known: series and environments are the likeliest. */
const PRIOR: Record<Pattern, number> = { number: 1, environment: 0.8, swap: 0.4, zone: 0.5 };

/** Words that name an environment; one in a label is tried as each of the others. */
export const ENVIRONMENTS = [
  'dev',
  'develop',
  'development',
  'staging',
  'stage',
  'stg',
  'qa',
  'uat',
  'test',
  'testing',
  'prod',
  'production',
  'prd',
  'int',
  'preprod',
  'pre',
  'sandbox',
  'demo',
  'beta',
  'alpha',
  'canary',
  'perf',
  'load',
] as const;
const ENVIRONMENT_SET: ReadonlySet<string> = new Set(ENVIRONMENTS);

/** First labels most zones hold, tried in a revealed sub-zone beside the root's own first labels. */
const ZONE_WORDS = ['www', 'api', 'app', 'admin', 'portal', 'auth', 'login', 'mail', 'vpn', 'cdn', 'static', 'docs'];

export interface Candidate {
  host: string;
  pattern: Pattern;
  score: number;
}

export interface NamingOptions {
  /** How many zone levels below the root a revealed sub-zone may sit (PERMUTE_DEPTH). */
  depth: number;
  /** How many candidates to return at most, the best-ranked first. */
  limit: number;
  /** Names never to return: tried lately without an answer (the negative cache). */
  skip?: ReadonlySet<string>;
  /** Each pattern's hits and tries on this root so far: a pattern that hits more is spent on first. */
  yields?: Partial<Record<Pattern, { tried: number; hits: number }>>;
}

/** A label's parts: the dash-separated words, each with its digit runs apart (`web01-eu` → web, 01, -, eu). */
interface Label {
  parts: string[];
  zone: string;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** `web01` → ['web', '01']; `2fa` → ['2', 'fa']. */
function runs(part: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i <= part.length; i++) {
    if (i === part.length || isDigit(part.charCodeAt(i)) !== isDigit(part.charCodeAt(i - 1))) {
      out.push(part.slice(start, i));
      start = i;
    }
  }
  return out;
}

function readLabel(host: string, root: string): Label | null {
  if (host.length <= root.length + 1 || !host.endsWith(`.${root}`)) return null;
  const dot = host.indexOf('.');
  const first = host.slice(0, dot);
  if (first === '*' || first.length === 0) return null;
  return { parts: first.split('-'), zone: host.slice(dot + 1) };
}

/** How many levels below the root a zone sits: 0 for the root itself. */
function levelsBelow(zone: string, root: string): number {
  if (zone === root) return 0;
  let n = 0; // the dots before the root's own name: `a.dev.` is two levels
  for (let i = 0; i < zone.length - root.length; i++) if (zone.charCodeAt(i) === 46) n++;
  return n;
}

/** Count of each key, for ranking by frequency. */
class Tally {
  readonly counts = new Map<string, number>();
  add(key: string, n = 1) {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }
  get(key: string) {
    return this.counts.get(key) ?? 0;
  }
  /** The keys, most frequent first (ties by name, so the order is the same on every run). */
  top(n: number): string[] {
    return [...this.counts.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, n)
      .map(([k]) => k);
  }
}

/** The words tried in a dash position: the most frequent ones of the root. */
const SWAP_WORDS = 40;
/** Numbers tried past the highest of a series, and gaps filled inside it at most. */
const SERIES_AHEAD = 3;
const SERIES_GAPS = 20;

/**
 * The candidates the known hosts of `root` suggest, best first, none of them known or skipped, at most
 * `options.limit`. Scores are comparable across patterns: prior × the pattern's hit rate × how common the words
 * that make the candidate are.
 */
export function candidatesFor(root: string, known: readonly string[], options: NamingOptions): Candidate[] {
  const knownSet = new Set(known);
  const labels: Label[] = [];
  const words = new Tally(); // every dash part that is a word (no digits), anywhere
  const firsts = new Tally(); // first labels, whole
  const skeletons = new Map<string, number[]>(); // `zone|api-#|width` → the numbers seen
  const zones = new Tally();
  for (const host of known) {
    const label = readLabel(host, root);
    if (!label) continue;
    labels.push(label);
    firsts.add(label.parts.join('-'));
    zones.add(label.zone);
    for (const part of label.parts)
      if (part && !isDigit(part.charCodeAt(0)) && runs(part).length === 1) words.add(part);
  }
  // Zones of the zones: a host two levels down reveals both levels.
  for (const zone of [...zones.counts.keys()]) {
    for (let z = zone; z !== root && z.length > root.length; z = z.slice(z.indexOf('.') + 1)) {
      if (!zones.counts.has(z)) zones.add(z, 0);
    }
  }

  const rate = (p: Pattern) => {
    const y = options.yields?.[p];
    // Laplace-smoothed hit rate against a prior of one hit in twenty tries.
    return PRIOR[p] * (y ? (y.hits + 1) / (y.tried + 20) / (1 / 20) : 1);
  };
  const best = new Map<string, Candidate>();
  const offer = (host: string, pattern: Pattern, weight: number) => {
    if (knownSet.has(host) || options.skip?.has(host) || host.length > 253) return;
    const score = rate(pattern) * weight;
    const held = best.get(host);
    if (!held || held.score < score) best.set(host, { host, pattern, score });
  };
  const maxWord = Math.max(1, ...words.counts.values());
  // Sorted once: the swap words are the same for every label.
  const swapWords = words.top(SWAP_WORDS).filter((w) => !ENVIRONMENT_SET.has(w));

  for (const { parts, zone } of labels) {
    // Numbered series: each digit run varied, within the series and just past it.
    parts.forEach((part, i) => {
      const pieces = runs(part);
      pieces.forEach((piece, j) => {
        if (!isDigit(piece.charCodeAt(0))) return;
        const shape = (n: string) => {
          const p = [...parts];
          const q = [...pieces];
          q[j] = n;
          p[i] = q.join('');
          return p.join('-');
        };
        // A series is its zone, its shape and its numbers' width (`web01` and `web1` are two series).
        const width = piece.length;
        const key = `${zone}|${shape('#')}|${width}`;
        const seen = skeletons.get(key) ?? [];
        seen.push(Number(piece));
        skeletons.set(key, seen);
        const pad = (n: number) => String(n).padStart(width, '0');
        const n = Number(piece);
        for (const m of [n + 1, n - 1, n + 2]) if (m >= 0) offer(`${shape(pad(m))}.${zone}`, 'number', 1);
      });
    });
    // Environment words stand for each other; other words swap with the root's frequent ones.
    parts.forEach((part, i) => {
      const swapped = (word: string) => {
        const p = [...parts];
        p[i] = word;
        return `${p.join('-')}.${zone}`;
      };
      if (ENVIRONMENT_SET.has(part)) {
        for (const env of ENVIRONMENTS)
          if (env !== part) offer(swapped(env), 'environment', 0.5 + words.get(env) / maxWord);
      } else if (parts.length > 1 && !isDigit(part.charCodeAt(0))) {
        for (const word of swapWords) if (word !== part) offer(swapped(word), 'swap', words.get(word) / maxWord);
      }
    });
  }
  // A series' gaps and its next numbers, whatever host of it they were read from.
  for (const [key, numbers] of skeletons) {
    const [zone, shape, width] = key.split('|');
    const present = new Set(numbers);
    const sorted = [...present].sort((a, b) => a - b);
    const pad = (n: number) => String(n).padStart(Number(width), '0');
    const weight = Math.min(1, 0.4 + sorted.length / 10);
    let gaps = 0;
    for (let n = sorted[0]; n <= sorted[sorted.length - 1] && gaps < SERIES_GAPS; n++) {
      if (!present.has(n)) {
        offer(`${shape.replace('#', pad(n))}.${zone}`, 'number', weight);
        gaps++;
      }
    }
    for (let k = 1; k <= SERIES_AHEAD; k++)
      offer(`${shape.replace('#', pad(sorted[sorted.length - 1] + k))}.${zone}`, 'number', weight);
  }
  // Revealed sub-zones get the root's common first labels, and the usual ones.
  const common = [...new Set([...firsts.top(SWAP_WORDS), ...ZONE_WORDS])];
  const maxFirst = Math.max(1, ...firsts.counts.values());
  for (const zone of zones.counts.keys()) {
    if (zone === root || levelsBelow(zone, root) > options.depth) continue;
    for (const first of common) offer(`${first}.${zone}`, 'zone', 0.2 + firsts.get(first) / maxFirst);
  }

  return [...best.values()].sort((a, b) => b.score - a.score || (a.host < b.host ? -1 : 1)).slice(0, options.limit);
}
