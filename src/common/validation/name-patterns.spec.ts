import { RE2JS } from 're2js';
import { HOST_NAME_PATTERN, NO_CONTROL_PATTERN, ROOT_DOMAIN_PATTERN } from './name-patterns.js';

/** Both engines' answer on one name: RE2's (re2js), as Go and RE2-based tools read a pattern, and ECMAScript's. */
function readings(pattern: string, name: string): [boolean, boolean] {
  return [RE2JS.compile(pattern).matcher(name).find(), new RegExp(pattern).test(name)];
}

/** Each pattern the document states, with names it must take and names it must refuse. */
const CASES: [name: string, pattern: string, good: string[], bad: string[]][] = [
  [
    'root domain',
    ROOT_DOMAIN_PATTERN,
    ['example.com', 'a-b.co.uk', 'xn--bcher-kva.de', '1password.com', `${'a'.repeat(63)}.io`],
    ['Example.com', '-bad.com', 'bad-.com', 'exa_mple.com', '1.2.3.4', 'localhost', `${'a'.repeat(64)}.io`, 'a..b'],
  ],
  [
    'host name',
    HOST_NAME_PATTERN,
    ['api.example.com', '_dmarc.example.com', 'x_1.beta.com', 'a.b'],
    ['API.example.com', '-a.example.com', 'a-.example.com', 'example', 'a..example.com', 'a.example.com.'],
  ],
  ['text without controls', NO_CONTROL_PATTERN, ['Example Corp', 'Café – 日本語', ''], ['a\tb', 'a\u0000', '\u007f']],
];

describe('the patterns the OpenAPI document states', () => {
  it.each(CASES)(
    '%s: RE2 and ECMAScript read it alike, on names it takes and names it refuses',
    (_, pattern, good, bad) => {
      for (const name of good) expect([name, ...readings(pattern, name)]).toEqual([name, true, true]);
      for (const name of bad) expect([name, ...readings(pattern, name)]).toEqual([name, false, false]);
    },
  );
});
