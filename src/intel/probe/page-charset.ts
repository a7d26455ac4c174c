import { MIMEType } from 'node:util';

/** Bytes a <meta> declaring the encoding is looked for in: HTML's prescan reads no further. */
const PRESCAN_BYTES = 1024;

/**
 * A page's body as text, in the encoding HTML's sniffing rules pick (WHATWG HTML, "determining the character
 * encoding"): a byte order mark, else the charset of Content-Type, else a <meta charset> or <meta http-equiv=
 * "Content-Type"> in the first 1024 bytes, else UTF-8. Labels are read as the Encoding Standard says (latin1 and
 * ISO-8859-1 are windows-1252); a label TextDecoder does not know counts as none.
 */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const encoding = byteOrderMark(body) ?? fromContentType(contentType) ?? prescan(body) ?? 'utf-8';
  const text = new TextDecoder(encoding).decode(body);
  // Node 20.18.3 and later decode windows-1252 as ISO-8859-1, bytes 0x80-0x9F as C1 controls
  // (https://github.com/nodejs/node/issues/60888): map them as the Encoding Standard does. A fixed decoder leaves
  // only the five identities of the table in that range, which this keeps.
  return encoding === 'windows-1252'
    ? text.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252[c.charCodeAt(0) - 0x80])
    : text;
}

/** Bytes 0x80-0x9F in windows-1252: the Encoding Standard's index-windows-1252. */
const WINDOWS_1252 = [
  ...'\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f',
  ...'\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178',
];

function byteOrderMark(body: Buffer): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

/** The encoding a label names, or null (unknown, or "replacement", which TextDecoder refuses). */
export function encodingOf(label: string | null | undefined): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

function fromContentType(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return encodingOf(new MIMEType(value).params.get('charset'));
  } catch {
    return null; // not a MIME type: no charset declared
  }
}

const WHITESPACE = new Set(['\t', '\n', '\f', '\r', ' ']);

/**
 * HTML's prescan for a <meta> that declares the encoding, over the first 1024 bytes read as single bytes (the
 * markup it looks for is ASCII). Comments and other tags are skipped whole, so a charset named in a comment or
 * another tag's attribute does not count. One pass: every step moves forward.
 */
function prescan(body: Buffer): string | null {
  const s = body.subarray(0, PRESCAN_BYTES).toString('latin1').toLowerCase();
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      if (end === -1) return null;
      i = end + 3;
    } else if (s.startsWith('<meta', i) && (WHITESPACE.has(s[i + 5]) || s[i + 5] === '/')) {
      const found = meta(s, i + 5);
      if (found.encoding) return found.encoding;
      i = found.next;
    } else if (s[i] === '<' && /[a-z]/.test(s[i + 1] ?? '')) {
      i = skipAttributes(s, i + 1);
    } else if (s[i] === '<' && s[i + 1] === '/' && /[a-z]/.test(s[i + 2] ?? '')) {
      i = skipAttributes(s, i + 2);
    } else if (s[i] === '<' && (s[i + 1] === '!' || s[i + 1] === '/' || s[i + 1] === '?')) {
      const end = s.indexOf('>', i + 2);
      if (end === -1) return null;
      i = end + 1;
    } else {
      i++;
    }
  }
  return null;
}

/** A <meta>'s attributes from `at`: the encoding it declares, if any, and where the tag ends. */
function meta(s: string, at: number): { encoding: string | null; next: number } {
  const seen = new Set<string>();
  let pragma = false;
  let charset: string | null = null;
  let fromContent = false;
  let i = at;
  for (let a = attribute(s, i); a; a = attribute(s, i)) {
    i = a.next;
    if (seen.has(a.name)) continue;
    seen.add(a.name);
    if (a.name === 'http-equiv' && a.value === 'content-type') pragma = true;
    else if (a.name === 'content' && charset === null) {
      charset = charsetInContent(a.value);
      fromContent = charset !== null;
    } else if (a.name === 'charset') {
      charset = a.value;
      fromContent = false;
    }
  }
  const next = i + 1;
  if (charset === null || (fromContent && !pragma)) return { encoding: null, next };
  const encoding = encodingOf(charset);
  // A page cannot declare UTF-16 in its own bytes (they would not be ASCII); x-user-defined means windows-1252.
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return { encoding: 'utf-8', next };
  if (charset.trim() === 'x-user-defined') return { encoding: 'windows-1252', next };
  return { encoding, next };
}

function skipAttributes(s: string, at: number): number {
  let i = at;
  while (i < s.length && !WHITESPACE.has(s[i]) && s[i] !== '>') i++;
  for (let a = attribute(s, i); a; a = attribute(s, i)) i = a.next;
  return i + 1;
}

/** HTML's "get an attribute": the next name and value from `at`, or null at the tag's end. */
function attribute(s: string, at: number): { name: string; value: string; next: number } | null {
  let i = at;
  while (i < s.length && (WHITESPACE.has(s[i]) || s[i] === '/')) i++;
  if (i >= s.length || s[i] === '>') return null;
  const nameStart = i;
  while (i < s.length && !WHITESPACE.has(s[i]) && s[i] !== '/' && s[i] !== '>' && (s[i] !== '=' || i === nameStart))
    i++;
  const name = s.slice(nameStart, i);
  while (i < s.length && WHITESPACE.has(s[i])) i++;
  if (s[i] !== '=') return { name, value: '', next: i };
  i++;
  while (i < s.length && WHITESPACE.has(s[i])) i++;
  if (s[i] === '"' || s[i] === "'") {
    const end = s.indexOf(s[i], i + 1);
    if (end === -1) return { name, value: s.slice(i + 1), next: s.length };
    return { name, value: s.slice(i + 1, end), next: end + 1 };
  }
  const valueStart = i;
  while (i < s.length && !WHITESPACE.has(s[i]) && s[i] !== '>') i++;
  return { name, value: s.slice(valueStart, i), next: i };
}

/** HTML's "extracting a character encoding from a meta element": the charset=… of a content attribute. */
export function charsetInContent(content: string): string | null {
  const s = content.toLowerCase();
  for (let i = s.indexOf('charset'); i !== -1; i = s.indexOf('charset', i)) {
    i += 7;
    while (WHITESPACE.has(s[i])) i++;
    if (s[i] !== '=') continue;
    i++;
    while (WHITESPACE.has(s[i])) i++;
    const quote = s[i];
    if (quote === '"' || quote === "'") {
      const end = s.indexOf(quote, i + 1);
      return end === -1 ? null : s.slice(i + 1, end);
    }
    let end = i;
    while (end < s.length && !WHITESPACE.has(s[end]) && s[end] !== ';') end++;
    return end > i ? s.slice(i, end) : null;
  }
  return null;
}
