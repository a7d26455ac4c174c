import { RE2JS } from 're2js';
import list from './takeover-fingerprints.json' with { type: 'json' };

/**
 * Subdomain-takeover fingerprints: the community list "Can I take over XYZ?" (repository
 * EdOverflow/can-i-take-over-xyz, commit 5bd4e12837911c8475486f1da922c9b9c706e632, 2025-02-08), licensed
 * CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/). Shipped as data (takeover-fingerprints.json), with the
 * fields the service reads: the CNAME suffixes that point at a service, the text its error page shows (or NXDOMAIN
 * when a dangling alias answers so), and the list's verdict. Regenerated from ../shared/fixtures/takeover/
 * fingerprints.json, unchanged.
 */
export interface TakeoverFingerprint {
  service: string;
  cname: string[];
  fingerprint: string;
  nxdomain: boolean;
  http_status: number | null;
  status: string;
  vulnerable: boolean;
}

/** A fingerprint with the test of a page it stands for. */
export interface ListedFingerprint extends TakeoverFingerprint {
  /** The regular expression (RE2 syntax) the fingerprint is read as, or null when it is literal text. */
  pattern: string | null;
  /** The text of `body` that shows this service's error page, or null. */
  shownIn(body: string): string | null;
}

/**
 * Constructs that prose does not use: `.*` or `.+`, a backslash escape, and `&#124;`, which is how the list's README
 * table (where the JSON comes from) writes a `|`, since a bare one would end the cell.
 */
const PATTERN_SIGNS = ['.*', '.+', '\\', '&#124;'];

/**
 * An entry whose evidence is an HTTP status alone (Helprace's `HTTP_STATUS=301`, LaunchRock's `HTTP_STATUS=500`) is
 * no text of a page, and is not looked for in one: the probe follows redirects and keeps the last status, and a
 * redirect or a server error by itself says nothing of an unclaimed resource (a site's redirect from HTTP to HTTPS
 * is one). Neither service has NXDOMAIN as its evidence either, so neither is flagged.
 */
const STATUS_ONLY = /^HTTP_STATUS=\d{3}$/;

/**
 * How the list means an entry's text. It has no flag for it: its generator (scripts/gen_fingerprints.py) compiles
 * every fingerprint as a Python regular expression (re.MULTILINE, searched anywhere in the page) and falls back to
 * the literal text when that fails, so some entries are written as patterns (WordPress's
 * `Do you want to register .*.wordpress.com?`, Ngrok's, Ghost's `Site unavailable\.&#124;Failed to resolve…`), while
 * most are prose whose `.`, `?` and `(` are punctuation. An entry is read as a pattern only when it shows one of
 * PATTERN_SIGNS (`&#124;` read as `|`); every other entry is its literal text, found with includes(). A pattern runs
 * on re2js, in time linear in the body (no backtracking, whatever the page holds); one re2js refuses (RE2 lacks
 * look-around and back-references) is taken literally, as the generator does with what Python refuses.
 */
export function readFingerprint(entry: TakeoverFingerprint): ListedFingerprint {
  const text = entry.fingerprint;
  if (text.trim() === '' || entry.nxdomain || STATUS_ONLY.test(text)) {
    return { ...entry, pattern: null, shownIn: () => null };
  }
  const literal = { ...entry, pattern: null, shownIn: (body: string) => (body.includes(text) ? text : null) };
  if (!PATTERN_SIGNS.some((sign) => text.includes(sign))) return literal;
  const source = text.replaceAll('&#124;', '|');
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(source, RE2JS.MULTILINE);
  } catch {
    return literal;
  }
  return {
    ...entry,
    pattern: source,
    // test() runs on the DFA alone; only a page that matches is searched again for the text it shows.
    shownIn: (body: string) => (pattern.test(body) ? (pattern.exec(body)?.[0] as string | undefined) || null : null),
  };
}

export const TAKEOVER_FINGERPRINTS: readonly ListedFingerprint[] = list.map(readFingerprint);
