import { decodeHTML } from 'entities';

const TITLE_LENGTH = 200;
const WHITESPACE = new Set(['\t', '\n', '\f', '\r', ' ']);

/**
 * The page's <title>: character references decoded with the full HTML table, whitespace collapsed, control
 * characters dropped, at most 200 characters; null without a closed, non-empty one. Found by a scan that only moves
 * forward (no regular expression), so a page cannot make it slow.
 */
export function titleOf(html: string): string | null {
  const open = tagAt(html, '<title', 0);
  if (open === -1) return null;
  const start = html.indexOf('>', open + '<title'.length);
  if (start === -1) return null;
  const end = tagAt(html, '</title', start + 1);
  if (end === -1) return null;
  const title = clean(
    decodeHTML(html.slice(start + 1, end))
      .replace(/\s+/g, ' ')
      .trim(),
    TITLE_LENGTH,
  );
  return title === '' ? null : title;
}

/**
 * Where the first `tag` (`<title`, `</title`) from `from` starts, case-insensitively and with its name whole
 * (followed by whitespace, `/` or `>`, so `<titles>` is not a title), or -1. Each `<` is looked at once.
 */
function tagAt(html: string, tag: string, from: number): number {
  for (let i = html.indexOf('<', from); i !== -1; i = html.indexOf('<', i + 1)) {
    if (html.slice(i, i + tag.length).toLowerCase() !== tag) continue;
    const next = html[i + tag.length];
    if (next === undefined) return -1;
    if (next === '>' || next === '/' || WHITESPACE.has(next)) return i;
  }
  return -1;
}

/** Text from outside, made safe to keep and show: no control or bidi-override characters, bounded. */
export function clean(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- dropping control characters is the point
  return [...text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '')].slice(0, max).join('');
}
