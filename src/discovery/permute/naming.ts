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

/** The patterns a candidate comes from; each one's hit rate is kept per root and steers the next spend. */
export const PATTERNS = ['number', 'environment', 'swap', 'zone', 'region'] as const;
export type Pattern = (typeof PATTERNS)[number];

/** How much a pattern is trusted before its hit rate is known: series, environments and regions the most. */
const PRIOR: Record<Pattern, number> = { number: 1, environment: 0.9, region: 0.9, swap: 0.7, zone: 0.8 };

/** Words that name an environment; one in a label is tried as each of the others. */
export const ENVIRONMENTS: readonly string[] = [
  ...['dev', 'develop', 'development', 'staging', 'stage', 'stg', 'qa', 'uat', 'test', 'testing', 'prod'],
  ...['production', 'prd', 'int', 'preprod', 'pre', 'sandbox', 'demo', 'beta', 'alpha', 'canary', 'perf', 'load'],
];
const ENVIRONMENT_SET: ReadonlySet<string> = new Set(ENVIRONMENTS);

/** Words that name a region or a country; `us-east` is one token although it holds a dash. */
export const REGIONS: readonly string[] = [
  ...['eu', 'us', 'uk', 'de', 'fr', 'nl', 'ap', 'apac', 'emea', 'asia', 'au', 'jp', 'sg', 'ca'],
  ...['us-east', 'us-west', 'us-central', 'eu-west', 'eu-central', 'eu-north', 'ap-south', 'ap-southeast'],
  ...['ap-northeast', 'sa-east', 'ca-central'],
];
const REGION_SET: ReadonlySet<string> = new Set(REGIONS);
/** The first parts of the two-part regions (`us` of `us-east`): only after one is the next part looked at. */
const REGION_HEADS: ReadonlySet<string> = new Set(REGIONS.filter((r) => r.includes('-')).map((r) => r.split('-')[0]));

/** First labels most zones hold, tried in a revealed sub-zone beside the root's own services. */
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
/** How far a form with a number is trusted for a service it was not seen with. */
const NUMBERED_FORM = 0.5;
/** Numbers tried past the highest of a series, and gaps filled inside it at most (or twice the numbers it holds). */
const SERIES_AHEAD = 2;
/** Digits a series' number has at most: a longer one is an id (`build-20261201`), not a count. */
const SERIES_DIGITS = 5;
const SERIES_GAPS = 20;
/** How likely a number past a series' highest is, against one inside it. */
const SERIES_PAST = 0.4;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isNumber = (s: string) => {
  for (let i = 0; i < s.length; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return s.length > 0;
};

/** A form: where the service goes in a first label, in a zone (a candidate is `before` + service + `tail`). */
interface Form {
  before: string;
  /** What follows the service, the zone included: `-staging-2.eu.example.com`. */
  tail: string;
  zone: string;
  pattern: Pattern;
  family: string;
  /** How many known services show it (and half a one for a zone `#` that only a zone below reveals). */
  services: number;
  members: string[];
  /** How far its count is trusted: a form with a number (`#-3`) mostly belongs to the series that show it. */
  weight: number;
  /** A seed shows it, or it sits in a zone a seed reveals (with options.seeds). */
  seeded: boolean;
}

/** A known host's first label, read into tokens, and its zone. */
interface Label {
  tokens: string[];
  zone: string;
  seed: boolean;
}

/** `us-east-api-2` → us-east, api, 2: dash parts, a two-part region kept whole. */
function tokensOf(first: string): string[] {
  const parts = first.split('-');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const pair = i + 1 < parts.length && REGION_HEADS.has(parts[i]) ? `${parts[i]}-${parts[i + 1]}` : '';
    if (pair && REGION_SET.has(pair)) {
      out.push(pair);
      i++;
    } else out.push(parts[i]);
  }
  return out;
}

/** `#-dev-12` → `#-dev-`: a form's numbers dropped, so that a series counts once. */
function withoutDigits(s: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (!isDigit(s.charCodeAt(i))) continue;
    out += s.slice(start, i);
    start = i + 1;
  }
  return start === 0 ? s : out + s.slice(start);
}

const isWord = (t: string) => t.length > 0 && !isNumber(t) && !ENVIRONMENT_SET.has(t) && !REGION_SET.has(t);

/** How many levels below the root a zone sits: 0 for the root itself. */
function levelsBelow(zone: string, root: string): number {
  if (zone === root) return 0;
  let n = 0; // the dots before the root's own name: `a.dev.` is two levels
  for (let i = 0; i < zone.length - root.length; i++) if (zone.charCodeAt(i) === 46) n++;
  return n;
}

/** `-2.dev.example.com` in `dev.example.com`: a number, then the zone. */
function numberedTail(tail: string, zone: string): boolean {
  return tail.charCodeAt(0) === 45 && isNumber(tail.slice(1, tail.length - zone.length - 1));
}

/**
 * The pattern a form's candidates count toward, and its family: the kinds of its tokens in order (`#-staging-eu`:
 * `#ER`; `.#` for a sub-zone's), a service's habits being counted by family.
 */
function kindOf(tokens: readonly string[], from: number, to: number, zone: string, root: string, numbered: boolean) {
  let pattern: Pattern = numbered ? 'number' : zone === root ? 'swap' : 'zone';
  let family = zone === root ? '' : '.';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (i >= from && i < to) {
      if (i === from) family += numbered ? '#N' : '#';
    } else if (ENVIRONMENT_SET.has(t)) {
      family += 'E';
      pattern = 'environment';
    } else if (REGION_SET.has(t)) {
      family += 'R';
      if (pattern !== 'environment') pattern = 'region';
    } else if (isNumber(t)) {
      family += 'N';
      if (pattern === 'swap' || pattern === 'zone') pattern = 'number';
    } else family += 'W';
  }
  return { pattern, family };
}

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

/** What the known names of a root teach, read in one pass. */
interface Naming {
  labels: Label[];
  forms: Map<string, Form>; // before|tail → the form
  services: Map<string, Map<string, number>>; // service → its habits, by family
  habitsOf: Map<string, number>; // family → the habits of every service in it
  total: number;
  seedServices: Set<string>;
  seenEnvironments: Set<string>;
  seedZones: Set<string>; // the zones a seed sits in, and those above them
}

/** How candidates are made: only around the seeds or not, scored by each pattern's rate, offered to the ranking. */
interface Making {
  root: string;
  seeds?: ReadonlySet<string>;
  rate: Record<Pattern, number>;
  offer: (host: string, pattern: Pattern, score: number) => void;
}

function learn(root: string, names: ReadonlySet<string>, seeds: ReadonlySet<string> | undefined): Naming {
  const naming: Naming = {
    labels: [],
    forms: new Map(),
    services: new Map(),
    habitsOf: new Map(),
    total: 0,
    seedServices: new Set(),
    seenEnvironments: new Set(),
    seedZones: new Set(),
  };
  const { forms, services, habitsOf } = naming;
  const habits = new Set<string>(); // service|form, the form's numbers left out
  const zones = new Set<string>();
  const under = `.${root}`;
  for (const host of names) {
    if (host.length <= under.length || !host.endsWith(under)) continue;
    const dot = host.indexOf('.');
    const first = host.slice(0, dot);
    if (first === '*' || first.length === 0) continue;
    const zone = host.slice(dot + 1);
    const seed = !seeds || seeds.has(host);
    const tokens = tokensOf(first);
    naming.labels.push({ tokens, zone, seed });
    zones.add(zone);
    if (seed && !naming.seedZones.has(zone)) {
      for (let z = zone; z.length > root.length; z = z.slice(z.indexOf('.') + 1)) naming.seedZones.add(z);
    }
    for (const t of tokens) if (ENVIRONMENT_SET.has(t)) naming.seenEnvironments.add(t);
    // The service: the leading run of plain words (`api` of `dev-api-2`, `api-gateway` of `api-gateway-eu`).
    let from = 0;
    while (from < tokens.length && !isWord(tokens[from])) from++;
    let to = from;
    while (to < tokens.length && isWord(tokens[to])) to++;
    if (from === to) continue;
    // Its number belongs to the form: `web01` is the service `web` in the form `#01`.
    const words = to - from === 1 ? tokens[from] : tokens.slice(from, to).join('-');
    let d = words.length;
    while (d > 0 && isDigit(words.charCodeAt(d - 1))) d--;
    const service = words.slice(0, d);
    const before = from > 0 ? `${tokens.slice(0, from).join('-')}-` : '';
    const tail = `${words.slice(d)}${to < tokens.length ? `-${tokens.slice(to).join('-')}` : ''}.${zone}`;
    const key = `${before}|${tail}`;
    const plain = withoutDigits(key);
    let form = forms.get(key);
    if (!form) {
      const { pattern, family } = kindOf(tokens, from, to, zone, root, d < words.length);
      const weight = plain === key ? 1 : NUMBERED_FORM;
      form = { before, tail, zone, pattern, family, services: 0, members: [], weight, seeded: false };
      forms.set(key, form);
    }
    form.services++;
    form.members.push(service);
    form.seeded ||= seed;
    if (seed) naming.seedServices.add(service);
    // A service counts each of its forms once, a series' numbers as one (`api-1`…`api-9` are one habit).
    const habit = `${service}|${plain}`;
    if (habits.has(habit)) continue;
    habits.add(habit);
    const by = services.get(service) ?? new Map<string, number>();
    by.set(form.family, (by.get(form.family) ?? 0) + 1);
    habitsOf.set(form.family, (habitsOf.get(form.family) ?? 0) + 1);
    services.set(service, by);
    naming.total++;
  }
  // By name, so that ties are offered in the same order whatever the order of the known names.
  naming.services = new Map([...services].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
  // A zone revealed only by a zone below it (`x.eu.dev.example.com` → `dev.example.com`) holds the form `#` too.
  for (const zone of zones) {
    for (let z = zone.slice(zone.indexOf('.') + 1); z.length > root.length; z = z.slice(z.indexOf('.') + 1)) {
      const key = `|.${z}`;
      if (forms.has(key)) continue;
      const form = { before: '', tail: `.${z}`, zone: z, pattern: 'zone' as const, family: '.#', services: 0 };
      forms.set(key, { ...form, members: [], weight: 1, seeded: false });
    }
  }
  return naming;
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
