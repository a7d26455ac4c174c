import { stripControlCharacters } from '../../common/validation/control-characters.js';

/** A piece of text that came from outside: a program or platform name, a host, a DNS answer, a page title. */
export interface Outside {
  readonly outside: string;
}

/**
 * Text of a message for people, our words and outside text kept apart, so that each channel writes the outside
 * parts as its markup needs (escaped, or in an element that renders no markup) and leaves its own words alone.
 */
export type Text = readonly (string | Outside)[];

/**
 * `` text`${count} new hosts on ${domain}` ``: every string put in is outside text; numbers and Texts are ours.
 * So a name is escaped unless someone says otherwise, never the other way round.
 */
export function text(words: TemplateStringsArray, ...values: (string | number | Text)[]): Text {
  const parts: (string | Outside)[] = [words[0]];
  values.forEach((value, i) => {
    if (typeof value === 'string') parts.push({ outside: value });
    else if (typeof value === 'number') parts.push(String(value));
    else parts.push(...value);
    parts.push(words[i + 1]);
  });
  return parts.filter((part) => part !== '');
}

/** Words of ours, written as they are. */
export function ours(words: string): Text {
  return [words];
}

/**
 * The text written out: our words as they are, each outside part without control characters (a line break
 * would start a line of markup: a heading, a quote, a list) and then through `escape`.
 */
export function written(t: Text, escape: (outside: string) => string): string {
  return t.map((part) => (typeof part === 'string' ? part : escape(stripControlCharacters(part.outside)))).join('');
}

/** The text as plain text, for a channel that reads no markup. */
export function plain(t: Text): string {
  return written(t, (s) => s);
}
