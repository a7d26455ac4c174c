/**
 * The words of the permute source's naming (naming.ts): the patterns, the environment and region words, and how a
 * first label is read into tokens. No regular expression is run on a name: names are outside text.
 */
/** The patterns a candidate comes from; each one's hit rate is kept per root and steers the next spend. */
export const PATTERNS = ['number', 'environment', 'swap', 'zone', 'region'] as const;
export type Pattern = (typeof PATTERNS)[number];

/** Words that name an environment; one in a label is tried as each of the others. */
export const ENVIRONMENTS: readonly string[] = [
  ...['dev', 'develop', 'development', 'staging', 'stage', 'stg', 'qa', 'uat', 'test', 'testing', 'prod'],
  ...['production', 'prd', 'int', 'preprod', 'pre', 'sandbox', 'demo', 'beta', 'alpha', 'canary', 'perf', 'load'],
];
export const ENVIRONMENT_SET: ReadonlySet<string> = new Set(ENVIRONMENTS);

/** Words that name a region or a country; `us-east` is one token although it holds a dash. */
export const REGIONS: readonly string[] = [
  ...['eu', 'us', 'uk', 'de', 'fr', 'nl', 'ap', 'apac', 'emea', 'asia', 'au', 'jp', 'sg', 'ca'],
  ...['us-east', 'us-west', 'us-central', 'eu-west', 'eu-central', 'eu-north', 'ap-south', 'ap-southeast'],
  ...['ap-northeast', 'sa-east', 'ca-central'],
];
export const REGION_SET: ReadonlySet<string> = new Set(REGIONS);
/** The first parts of the two-part regions (`us` of `us-east`): only after one is the next part looked at. */
export const REGION_HEADS: ReadonlySet<string> = new Set(
  REGIONS.filter((r) => r.includes('-')).map((r) => r.split('-')[0]),
);

/** First labels most zones hold, tried in a revealed sub-zone beside the root's own services. */
export const ZONE_WORDS = [
  'www',
  'api',
  'app',
  'admin',
  'portal',
  'auth',
  'login',
  'mail',
  'vpn',
  'cdn',
  'static',
  'docs',
];

export const isDigit = (c: number) => c >= 48 && c <= 57;
export const isNumber = (s: string) => {
  for (let i = 0; i < s.length; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return s.length > 0;
};

/** `us-east-api-2` → us-east, api, 2: dash parts, a two-part region kept whole. */
export function tokensOf(first: string): string[] {
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
export function withoutDigits(s: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (!isDigit(s.charCodeAt(i))) continue;
    out += s.slice(start, i);
    start = i + 1;
  }
  return start === 0 ? s : out + s.slice(start);
}

export const isWord = (t: string) => t.length > 0 && !isNumber(t) && !ENVIRONMENT_SET.has(t) && !REGION_SET.has(t);

/** How many levels below the root a zone sits: 0 for the root itself. */
export function levelsBelow(zone: string, root: string): number {
  if (zone === root) return 0;
  let n = 0; // the dots before the root's own name: `a.dev.` is two levels
  for (let i = 0; i < zone.length - root.length; i++) if (zone.charCodeAt(i) === 46) n++;
  return n;
}

/** `-2.dev.example.com` in `dev.example.com`: a number, then the zone. */
export function numberedTail(tail: string, zone: string): boolean {
  return tail.charCodeAt(0) === 45 && isNumber(tail.slice(1, tail.length - zone.length - 1));
}
