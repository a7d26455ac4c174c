// CSI and OSC sequences (colours, cursor moves, window titles) and the two-byte escapes.
// eslint-disable-next-line no-control-regex -- escapes are what this removes
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])/g;
// C0 and C1 controls, and the Unicode marks that reorder or hide text on a terminal.
// eslint-disable-next-line no-control-regex -- controls are what this removes
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;
// scheme://user:password@host: everything up to the authority's last @ (a password may hold a raw @).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/]*@/gi;
// password=…, token: … and their kin, as tools print them in messages and URLs' query strings.
const SECRET_PAIRS = /\b((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\s*[=:]\s*)[^\s&,;]+/gi;

export const STDERR_SUMMARY_MAX = 200;

/**
 * What of a failed command's stderr may go into scans.error, which every read key sees: its last non-empty line,
 * without escapes or control characters, with credentials masked, at most STDERR_SUMMARY_MAX characters.
 */
export function stderrSummary(stderr: string): string {
  const lines = stderr
    .replace(ESCAPES, '')
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  // Masked before it is cut, so a cut never leaves half a password.
  const line = (lines.at(-1) ?? '').replace(USERINFO, '$1***@').replace(SECRET_PAIRS, '$1***');
  return line.length > STDERR_SUMMARY_MAX ? `${line.slice(0, STDERR_SUMMARY_MAX - 1)}…` : line;
}
