/**
 * Characters a terminal acts on rather than shows: C0 controls and DEL, C1 controls (a lone U+009B is a CSI on
 * many terminals), and the bidirectional embeddings, overrides and isolates that reorder what follows them.
 * Names people give may not hold them; names read from others' files lose them; the CLI prints them escaped.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const CONTROL_ALL = new RegExp(CONTROL.source, 'g');

export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

/** What a name from an imported file keeps: its text without control characters. */
export function stripControlCharacters(text: string): string {
  return text.replace(CONTROL_ALL, '');
}

/** Control characters made visible, as a JavaScript string literal would write them: ESC as `\x1b`. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_ALL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

/** The one-line reason a name is refused, naming the field as the caller says it. */
export const CONTROL_CHARACTERS_PROBLEM = (field: string) =>
  `${field} must not contain control characters or bidirectional overrides`;
