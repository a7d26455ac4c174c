import {
  ENVIRONMENT_SET,
  isDigit,
  isNumber,
  isWord,
  type Pattern,
  REGION_SET,
  tokensOf,
  withoutDigits,
} from './words.js';

// What a root's known names teach the permute source (naming.ts), read in one pass: forms, services, habits.

/** A form: where the service goes in a first label, in a zone (a candidate is `before` + service + `tail`). */
export interface Form {
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
export interface Label {
  tokens: string[];
  zone: string;
  seed: boolean;
}

/** How far a form with a number is trusted for a service it was not seen with. */
const NUMBERED_FORM = 0.5;

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

/** What the known names of a root teach, read in one pass. */
export interface Naming {
  labels: Label[];
  forms: Map<string, Form>; // before|tail → the form
  services: Map<string, Map<string, number>>; // service → its habits, by family
  habitsOf: Map<string, number>; // family → the habits of every service in it
  total: number;
  seedServices: Set<string>;
  seenEnvironments: Set<string>;
  seedZones: Set<string>; // the zones a seed sits in, and those above them
}

export function learn(root: string, names: ReadonlySet<string>, seeds: ReadonlySet<string> | undefined): Naming {
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
