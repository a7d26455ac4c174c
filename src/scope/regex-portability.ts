/**
 * What a regular expression that RE2 (re2js) accepts may use so that PostgreSQL, which matches it, reads it the
 * same way. Each refusal below was checked on both engines: PostgreSQL either refuses the construct (a rule that
 * would break every statement matching hosts) or reads it otherwise. Where the two differ only beyond the
 * characters of a host name (`\w` and `[[:alpha:]]` take in non-ASCII letters in PostgreSQL, `\s` the vertical
 * tab, `(?i)k` the Kelvin sign in RE2), nothing is refused: a host name holds none of them.
 */

/** PostgreSQL's largest repetition count (its DUPMAX); RE2 allows up to 1000. */
export const MAX_REPEAT = 255;

/** Escapes that stand for a set of characters, read alike in both engines on host names. */
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W']);
/** Escapes that stand for one character in both. */
const CHAR_ESCAPES = new Set(['t', 'n', 'r', 'f', 'v', 'a']);
/** Letter escapes RE2 knows and PostgreSQL reads otherwise or not at all, with what to write instead. */
const REFUSED_ESCAPES: Record<string, string> = {
  b: 'PostgreSQL reads \\b as a backspace and \\B as a backslash; match a label edge with (^|\\.) and (\\.|$)',
  A: 'use ^ and $',
  z: 'use ^ and $',
  p: 'use a class such as [a-z]',
  P: 'use a class such as [^a-z]',
  Q: 'escape each character with \\ instead',
  E: 'escape each character with \\ instead',
};
REFUSED_ESCAPES.B = REFUSED_ESCAPES.b;

const HEX_DIGIT = /^[0-9a-fA-F]$/;
const RANGE_END =
  'may not end a range with \\d, \\w, \\s or a [:name:] class (PostgreSQL refuses it): write \\- for the character -';

interface Item {
  /** Index just past the item. */
  end: number;
  /** A single character, or a set of them (which cannot end a range). */
  kind: 'char' | 'set';
}

/**
 * Why PostgreSQL would read `source`, a pattern RE2 accepts, otherwise or not at all, as the end of a sentence
 * that starts "a regular expression …"; null when both read it the same way.
 */
export function portabilityProblem(source: string): string | null {
  const c = Array.from(source);
  let i = source.startsWith('(?i)') ? 4 : 0;
  let anchor = false;
  while (i < c.length) {
    const ch = c[i];
    // RE2 repeats an anchor as an empty match; PostgreSQL refuses to.
    if (anchor && (ch === '*' || ch === '+' || ch === '?' || (ch === '{' && /^\d$/.test(c[i + 1] ?? '')))) {
      return 'may not repeat ^ or $ (PostgreSQL refuses it)';
    }
    anchor = ch === '^' || ch === '$';
    let next: Item | string;
    if (ch === '\\') {
      next = readEscape(c, i);
    } else if (ch === '[') {
      next = readClass(c, i);
    } else if (ch === '(' && c[i + 1] === '?') {
      // RE2 also has (?flags), (?flags:…) and named groups; PostgreSQL has options only at the very start.
      next =
        c[i + 2] === ':' ? { end: i + 3, kind: 'char' } : 'may use no flags but a leading (?i), and no named groups';
    } else if (ch === '{') {
      next = readBound(c, i);
    } else {
      next = { end: i + 1, kind: 'char' };
    }
    if (typeof next === 'string') return next;
    i = next.end;
  }
  return null;
}

/** `{n}`, `{n,}` or `{n,m}` (RE2 accepted the pattern, so it follows something it repeats), or a literal `{`. */
function readBound(c: string[], i: number): Item | string {
  const bound = /^\{(\d+)(?:,(\d*))?\}/.exec(c.slice(i).join(''));
  // RE2 reads a { that starts no bound as the character; PostgreSQL starts a bound at a { and a digit.
  if (!bound && /^\d$/.test(c[i + 1] ?? ''))
    return 'may not use a { and a digit that are no bound such as {2,5}: write \\{';
  if (!bound) return { end: i + 1, kind: 'char' };
  if ([bound[1], bound[2]].some((n) => n !== undefined && n !== '' && Number(n) > MAX_REPEAT)) {
    return `may repeat at most ${MAX_REPEAT} times (PostgreSQL's limit): ${bound[0]} is more`;
  }
  return { end: i + bound[0].length, kind: 'char' };
}

/** The escape at c[i] (a backslash; RE2 accepted the pattern, so something follows it). */
function readEscape(c: string[], i: number): Item | string {
  const e = c[i + 1];
  if (e === 'x') {
    if (c[i + 2] === '{') return 'may not use \\x{…}: write two hex digits, as in \\x41';
    // RE2 reads two hex digits after \x, PostgreSQL every hex digit that follows.
    const after = c[i + 4] ?? '';
    if (HEX_DIGIT.test(after)) {
      const code = `\\x${c[i + 2]}${c[i + 3]}`;
      const spelt = `\\x${after.charCodeAt(0).toString(16).padStart(2, '0')}`;
      return `may not follow ${code} with a hex digit (PostgreSQL reads ${code}${after} as one character): write ${code}${spelt}`;
    }
    return { end: i + 4, kind: 'char' };
  }
  if (/^[0-9]$/.test(e)) return 'may not use \\0 to \\9 (octal escapes in RE2, back-references in PostgreSQL)';
  if (CLASS_ESCAPES.has(e)) return { end: i + 2, kind: 'set' };
  if (CHAR_ESCAPES.has(e)) return { end: i + 2, kind: 'char' };
  if (/^[A-Za-z]$/.test(e)) return `may not use \\${e}${REFUSED_ESCAPES[e] ? `: ${REFUSED_ESCAPES[e]}` : ''}`;
  // An escaped punctuation character is that character in both.
  return { end: i + 2, kind: 'char' };
}

/** The bracket expression opening at c[start]: its end, or why PostgreSQL reads it otherwise. */
function readClass(c: string[], start: number): Item | string {
  let i = start + 1;
  if (c[i] === '^') i++;
  // A ] first in the class is the character itself in both.
  for (let first = true; first || c[i] !== ']'; first = false) {
    const low = readClassItem(c, i);
    if (typeof low === 'string') return low;
    i = low.end;
    // RE2 reads a - anywhere as the character when no range can be made; PostgreSQL only first or last.
    if (c[i] !== '-' || c[i + 1] === ']') continue;
    if (low.kind === 'set') return RANGE_END;
    const high = readClassItem(c, i + 1);
    if (typeof high === 'string') return high;
    if (high.kind === 'set') return RANGE_END;
    i = high.end;
    if (c[i] === '-' && c[i + 1] !== ']') {
      return 'may not put a - right after a range (PostgreSQL refuses it): write \\- for the character -';
    }
  }
  return { end: i + 1, kind: 'set' };
}

function readClassItem(c: string[], i: number): Item | string {
  if (c[i] === '\\') return readEscape(c, i);
  if (c[i] === '[' && (c[i + 1] === '.' || c[i + 1] === '=')) {
    return 'may not use [.x.] or [=x=] inside a class (collating elements in PostgreSQL, characters in RE2)';
  }
  if (c[i] === '[' && c[i + 1] === ':') {
    // RE2 reads [: up to the next :] as a class name (and refused the pattern if it knew no such class).
    const close = c.findIndex((ch, j) => j > i + 1 && ch === ':' && c[j + 1] === ']');
    if (close !== -1) {
      if (c[i + 2] === '^') return 'may not use [:^name:] (PostgreSQL has no such class): write [^[:name:]]';
      return { end: close + 2, kind: 'set' };
    }
  }
  return { end: i + 1, kind: 'char' };
}
