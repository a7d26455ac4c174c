/**
 * What a root's known hosts say about its naming, and the names that follow from it: the candidates of the permute
 * source, ranked by how likely the learned patterns make them. Pure and synchronous: no I/O, linear passes over
 * the known names, no regular expression run on them (names come from certificates and answers: outside text).
 *
 * A known host `api-staging-2.eu.example.com` under the root `example.com` is read as its first label
 * (`api-staging-2`) in its zone (`eu.example.com`). The first label splits into tokens on `-` (`api`, `staging`,
 * `2`), a region of two parts (`us-east`) being one token. Its leading run of plain words is the service (`api`),
 * the rest with the service left out is the form (`#-staging-2` in `eu.example.com`). What is learned:
 * - which services take which forms: a service with many habits in a form's family (`#ER`: service, environment,
 *   region) and a form seen with many services make a likely pair (each pair not known is a candidate, scored by
 *   the two counts as if they were independent); `x-2` where `x` is, as often as the zone's services show it;
 * - numbered series: a label with a number (`api-2`) in a skeleton (`api-#`) that holds others (`api-1`, `api-4`);
 * - environment words (dev, staging, qa, uat, prod…), which stand for each other, and region words likewise;
 * - the zones under the root that known hosts reveal (`x.dev.example.com` → `dev.example.com`), to a depth: the
 *   form `#` in such a zone takes the root's services like any other form.
 * Candidates less likely than MIN_SCORE are not made, so a root whose names are all found costs little.
 */

import { type Form, type Label, learn, type Naming } from './learn.js';
import {
  ENVIRONMENT_SET,
  ENVIRONMENTS,
  isDigit,
  levelsBelow,
  numberedTail,
  type Pattern,
  PATTERNS,
  ZONE_WORDS,
} from './words.js';

export { ENVIRONMENTS, type Pattern, PATTERNS, REGIONS } from './words.js';

/** How much a pattern is trusted before its hit rate is known: series, environments and regions the most. */
const PRIOR: Record<Pattern, number> = { number: 1, environment: 0.9, region: 0.9, swap: 0.7, zone: 0.8 };

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
  /**
   * Only what these hosts suggest (their series, their forms and services, the zones they reveal): a host just
   * found seeds permutations around it. Every known name still teaches the services, the forms and the series.
   */
  seeds?: ReadonlySet<string>;
}

/** A candidate's score below which it is not made: a likelihood, after the pattern's hit rate. */
const MIN_SCORE = 0.05;
/**
 * An environment word the root never shows, tried in a known label: far less likely than one it shows, the less
 * the more environments the root does show (this much, shared among them).
 */
const UNSEEN_ENVIRONMENT = 0.1;
/** How far a service's habits in one family lean towards its share of all habits (0: not at all). */
const LEAN = 2;
/** Numbers tried past the highest of a series, and gaps filled inside it at most (or twice the numbers it holds). */
const SERIES_AHEAD = 2;
/** Digits a series' number has at most: a longer one is an id (`build-20261201`), not a count. */
const SERIES_DIGITS = 5;
const SERIES_GAPS = 20;
/** How likely a number past a series' highest is, against one inside it. */
const SERIES_PAST = 0.4;

/**
 * The candidates, best first (ties by name, so the order is the same on every run), at most `limit`: those below
 * the limit-th score are dropped before the sort (a numeric sort of the scores finds it).
 */
function ranked(best: Map<string, Candidate>, limit: number): Candidate[] {
  let all = [...best.values()];
  if (all.length > limit) {
    const scores = Float64Array.from(all, (c) => -c.score).sort();
    const floor = -scores[Math.max(0, limit - 1)];
    all = all.filter((c) => c.score >= floor);
  }
  return all.sort((a, b) => b.score - a.score || (a.host < b.host ? -1 : 1)).slice(0, limit);
}

/** How candidates are made: only around the seeds or not, scored by each pattern's rate, offered to the ranking. */
interface Making {
  root: string;
  seeds?: ReadonlySet<string>;
  rate: Record<Pattern, number>;
  offer: (host: string, pattern: Pattern, score: number) => void;
}

/**
 * The candidates the known hosts of `root` suggest, best first, none of them known or skipped, at most
 * `options.limit`. Scores are comparable across patterns: prior × the pattern's hit rate × how likely the
 * learned naming makes the name.
 */
export function candidatesFor(root: string, known: readonly string[], options: NamingOptions): Candidate[] {
  const seeds = options.seeds;
  const names = seeds ? new Set([...known, ...seeds]) : new Set(known);
  const naming = learn(root, names, seeds);
  // Laplace-smoothed hit rates against a prior of one hit in twenty tries, relative to the best pattern's: a
  // pattern that misses is spent on later, but no pattern's candidates become likelier than the naming says.
  const raw = (p: Pattern) => {
    const y = options.yields?.[p];
    return PRIOR[p] * (y ? (y.hits + 1) / (y.tried + 20) / (1 / 20) : 1);
  };
  let top = 0;
  for (const p of PATTERNS) top = Math.max(top, raw(p));
  const rate = {} as Record<Pattern, number>;
  for (const p of PATTERNS) rate[p] = raw(p) / Math.max(1, top);
  const best = new Map<string, Candidate>();
  const offer = (host: string, pattern: Pattern, score: number) => {
    // A DNS name holds 253 characters at most, a label 63.
    if (host.length > 253 || host.indexOf('.') > 63 || names.has(host) || options.skip?.has(host)) return;
    const held = best.get(host);
    if (!held || held.score < score) best.set(host, { host, pattern, score });
  };
  const making: Making = { root, seeds, rate, offer };
  const forms = [...naming.forms.values()].filter((f) => f.zone === root || levelsBelow(f.zone, root) <= options.depth);
  for (const f of forms) {
    if (f.pattern === 'zone' && f.before === '' && f.tail === `.${f.zone}`) f.services += 0.5; // a revealed zone
    if (seeds) f.seeded ||= f.zone !== root && naming.seedZones.has(f.zone);
  }
  forms.sort((a, b) => b.services - a.services || (a.tail < b.tail ? -1 : a.tail > b.tail ? 1 : 0));
  pairs(naming, forms, making);
  zoneSiblings(naming, forms, making);
  unseenEnvironments(naming, making);
  series(naming.labels, names, making);
  return ranked(best, options.limit);
}

/**
 * Services × forms: a pair is as likely as the service's habits in the form's family and the form's services make
 * it, if the two are independent: expected count n_sF × n_f / N_F, n_sF leant towards the service's share of all
 * habits (a service seen in environments only may still take a region). The forms come sorted by count, so the
 * inner loop stops at MIN_SCORE.
 */
function pairs(naming: Naming, forms: readonly Form[], { root, seeds, rate, offer }: Making) {
  const { habitsOf, seedZones } = naming;
  const share = new Map<string, number>(); // per habit a service shows in a family, its weight there
  for (const [family, n] of habitsOf) share.set(family, 1 / (n * (1 + LEAN)));
  for (const [service, by] of naming.services) {
    const seedService = !seeds || naming.seedServices.has(service);
    let lean = 0; // the service's share of all habits, spread over the families as theirs are
    for (const n of by.values()) lean += n;
    lean = (LEAN * lean) / Math.max(1, naming.total);
    let most = lean / (1 + LEAN); // in a family it shows no habit in
    for (const [family, n] of by) most = Math.max(most, (n + lean * habitsOf.get(family)!) * share.get(family)!);
    for (const f of forms) {
      if (most * f.services < MIN_SCORE) break;
      if (f.pattern === 'number') continue; // `#-3`: the series' own, made from the series
      if (seeds && !(seedService || f.seeded)) continue;
      if (seeds && f.zone !== root && !seedZones.has(f.zone)) continue;
      const habits = habitsOf.get(f.family) ?? 0;
      const expected = habits ? ((by.get(f.family) ?? 0) + lean * habits) * share.get(f.family)! * f.services : 0;
      const score = ((rate[f.pattern] * expected) / (1 + expected)) * f.weight;
      if (score >= MIN_SCORE) offer(f.before + service + f.tail, f.pattern, score);
    }
  }
}

/**
 * In the zones: `x-2` beside `x` (a numbered form such as `#-2`, taken by the services of the form without the
 * number at the rate the services of both show), and in a small zone the usual first labels and the root's
 * services, as likely as the zone is full.
 */
function zoneSiblings(naming: Naming, forms: readonly Form[], { root, seeds, rate, offer }: Making) {
  const seeded = (service: string) => !seeds || naming.seedServices.has(service);
  for (const f of forms) {
    const bare = f.pattern === 'number' && f.before === '' ? naming.forms.get(`|.${f.zone}`) : undefined;
    if (!bare || bare.members.length === 0 || !numberedTail(f.tail, f.zone)) continue;
    if (seeds && f.zone !== root && !naming.seedZones.has(f.zone)) continue;
    const members = new Set(bare.members);
    let both = 0;
    for (const s of f.members) if (members.has(s)) both++;
    const score = (rate.number * both) / (bare.members.length + 1);
    if (score >= MIN_SCORE) for (const s of members) if (f.seeded || seeded(s)) offer(s + f.tail, 'number', score);
  }
  for (const f of forms) {
    if (f.zone === root || f.before !== '' || f.tail !== `.${f.zone}`) continue;
    if (seeds && !naming.seedZones.has(f.zone)) continue;
    const score = rate.zone * Math.min(1, f.services / Math.max(1, naming.total));
    if (score < MIN_SCORE) continue;
    for (const w of ZONE_WORDS) offer(`${w}.${f.zone}`, 'zone', score);
    for (const service of naming.services.keys()) if (seeded(service)) offer(`${service}.${f.zone}`, 'zone', score);
  }
}

/** Environment words the root never shows, each tried for one a seed shows. */
function unseenEnvironments(naming: Naming, { rate, offer }: Making) {
  const unseen = ENVIRONMENTS.filter((e) => !naming.seenEnvironments.has(e));
  const score = (rate.environment * UNSEEN_ENVIRONMENT) / Math.max(1, naming.seenEnvironments.size);
  if (score < MIN_SCORE) return;
  for (const { tokens, zone, seed } of naming.labels) {
    if (!seed) continue;
    for (let i = 0; i < tokens.length; i++) {
      if (!ENVIRONMENT_SET.has(tokens[i])) continue;
      const before = i > 0 ? `${tokens.slice(0, i).join('-')}-` : '';
      const after = `${i + 1 < tokens.length ? `-${tokens.slice(i + 1).join('-')}` : ''}.${zone}`;
      for (const env of unseen) offer(before + env + after, 'environment', score);
    }
  }
}

/**
 * Numbered series: a number in a label with the rest kept is a skeleton (`api-#-eu`); each one's gaps (from 1)
 * and next numbers are offered, the likelier the more numbers it holds.
 */
function series(labels: readonly Label[], names: ReadonlySet<string>, { seeds, rate, offer }: Making) {
  const skeletons = new Map<
    string,
    { before: string; after: string; width: number; seen: Set<number>; seed: boolean }
  >();
  for (const { tokens, zone, seed } of labels) {
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      // The number a token ends in: `2` of `api-2`, `01` of `web01`.
      let d = token.length;
      while (d > 0 && isDigit(token.charCodeAt(d - 1))) d--;
      // No number, or one too long to count in (a build id, a date, an address): no series.
      if (d === token.length || token.length - d > SERIES_DIGITS) continue;
      const before = `${i > 0 ? `${tokens.slice(0, i).join('-')}-` : ''}${token.slice(0, d)}`;
      const after = `${i + 1 < tokens.length ? `-${tokens.slice(i + 1).join('-')}` : ''}.${zone}`;
      // A padded series (`web01`) pads to its widest zero-led number; `web10` alone says nothing of padding.
      const width = token.charCodeAt(d) === 48 && token.length - d > 1 ? token.length - d : 1;
      const key = `${before}#${after}`;
      const held = skeletons.get(key);
      if (held) {
        held.seen.add(Number(token.slice(d)));
        held.seed ||= seed;
        held.width = Math.max(held.width, width);
      } else skeletons.set(key, { before, after, width, seen: new Set([Number(token.slice(d))]), seed });
    }
  }
  for (const { before, after, width, seen, seed } of skeletons.values()) {
    if (seeds && !seed) continue;
    let low = Infinity;
    let high = -Infinity;
    for (const n of seen) {
      low = Math.min(low, n);
      high = Math.max(high, n);
    }
    const name = (n: number) => `${before}${String(n).padStart(width, '0')}${after}`;
    // A series starts at 1, or at 2 when the name without a number stands for the first (`x` before `x-2`).
    const start = Math.min(low, before.endsWith('-') && names.has(before.slice(0, -1) + after) ? 2 : 1);
    // The more numbers it holds the likelier its gaps, the less the sparser it is (`node-0`, `node-3`…).
    const density = Math.min(1, (2 * seen.size) / (high - start + 1));
    const weight = rate.number * Math.min(0.9, 0.3 + seen.size / 10) * density;
    let gaps = 0;
    const most = weight < MIN_SCORE ? 0 : Math.max(SERIES_GAPS, 2 * seen.size);
    for (let n = start; n <= high && gaps < most; n++) {
      if (seen.has(n)) continue;
      offer(name(n), 'number', weight);
      gaps++;
    }
    // Past the highest number is a guess: the series may end there.
    for (let k = 1; k <= SERIES_AHEAD; k++) {
      const ahead = (weight * SERIES_PAST) / k;
      if (ahead >= MIN_SCORE) offer(name(high + k), 'number', ahead);
    }
  }
}
