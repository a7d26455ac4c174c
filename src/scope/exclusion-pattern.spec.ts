import fc from 'fast-check';
import { type ExclusionPattern, MAX_PATTERN_LENGTH, parseExclusionPattern } from './exclusion-pattern.js';

const parsed = (text: string): ExclusionPattern => {
  const p = parseExclusionPattern(text);
  if (typeof p === 'string') throw new Error(`refused ${text}: ${p}`);
  return p;
};
/** Whether the pattern's regex matches a host (host and wildcard regexes read the same in JavaScript). */
const matches = (text: string, host: string) => new RegExp(parsed(text).regex).test(host);

describe('exclusion patterns', () => {
  it('reads an exact host, lower-cased, that matches itself only', () => {
    expect(parsed('Staging.Example.com.')).toMatchObject({ kind: 'host', pattern: 'staging.example.com' });
    expect(matches('staging.example.com', 'staging.example.com')).toBe(true);
    expect(matches('staging.example.com', 'xstaging.example.com')).toBe(false);
    expect(matches('staging.example.com', 'staging.example.com.evil.net')).toBe(false);
    expect(matches('staging.example.com', 'stagingXexample.com')).toBe(false);
  });

  it('reads a leading * as one or more labels, and * inside a label as any run of label characters', () => {
    expect(parsed('*.Dev.example.com')).toMatchObject({ kind: 'wildcard', pattern: '*.dev.example.com' });
    expect(matches('*.dev.example.com', 'a.dev.example.com')).toBe(true);
    expect(matches('*.dev.example.com', 'a.b-c.dev.example.com')).toBe(true);
    expect(matches('*.dev.example.com', 'dev.example.com')).toBe(false);
    expect(matches('*.dev.example.com', 'xdev.example.com')).toBe(false);
    expect(matches('dev-*.example.com', 'dev-1.example.com')).toBe(true);
    expect(matches('dev-*.example.com', 'dev-a_b.example.com')).toBe(true);
    expect(matches('dev-*.example.com', 'a.dev-1.example.com')).toBe(false);
    expect(matches('dev-*.example.com', 'dev-1.x.example.com')).toBe(false);
    expect(matches('api*.example.com', 'api.example.com')).toBe(true);
    expect(matches('api.*.example.com', 'api.eu.example.com')).toBe(true);
    expect(matches('api.*.example.com', 'api.eu.west.example.com')).toBe(false);
  });

  it('keeps a regular expression as given, behind re:', () => {
    expect(parsed('re:^staging\\d+\\.')).toEqual({
      kind: 'regex',
      pattern: 're:^staging\\d+\\.',
      regex: '^staging\\d+\\.',
    });
    expect(parsed('re:(?i)^QA-')).toMatchObject({ kind: 'regex' });
  });

  // Each of these reads the same in RE2 and in PostgreSQL on host names (both engines were run on them).
  it.each([
    're:^staging\\d+\\.',
    're:a{255}',
    're:a{2,255}',
    're:(a{255}){3}',
    're:\\x41',
    're:\\x2d[a-z]',
    're:[\\x41-\\x5a]',
    're:[\\w.-]',
    're:[^\\d]',
    're:[\\d-]',
    're:[-a]',
    're:[a\\-z]',
    're:[]a]',
    're:[^]a]',
    're:[[:alnum:]_-]+',
    're:a{,3}',
    're:x{a}',
    're:(?:a|b)*?c',
    're:(^|\\.)api(\\.|$)',
    're:[(?s]',
    're:\\{2\\}',
  ])('accepts %j', (text) => expect(parsed(text)).toMatchObject({ kind: 'regex' }));

  it.each([
    ['', /must not be empty/],
    ['re:', /must not be empty/],
    ['*', /not a host name or a wildcard/],
    ['*.*', /at least one label that is not \*/],
    ['a..example.com', /not a host name/],
    ['https://example.com', /not a host name/],
    ['exa mple.com', /not a host name/],
    ['-a.example.com', /not a host name/],
    ['dev\u202e.example.com', /control characters/],
    ['re:(a)\\1', /linear time/],
    ['re:foo(?=bar)', /linear time/],
    ['re:[', /linear time/],
    ['re:a{1001}', /linear time/],
    ['re:(?s)a.b', /no flags but a leading \(\?i\)/],
    ['re:\\bapi', /may not use \\b/],
    ['re:api\\z', /may not use \\z/],
    // RE2 reads these, and PostgreSQL refuses them or reads them otherwise.
    ['re:a{256}', /at most 255 times/],
    ['re:a{2,1000}', /at most 255 times/],
    ['re:(ab){0256}', /at most 255 times/],
    ['re:\\x{41}', /may not use \\x\{…\}/],
    ['re:[^\\x00-\\x{10FFFF}]', /may not use \\x\{…\}/],
    ['re:\\x41b', /PostgreSQL reads \\x41b as one character\): write \\x41\\x62/],
    ['re:[\\d-z]', /may not end a range with \\d/],
    ['re:[a-\\w]', /linear time|may not end a range/],
    ['re:[[:digit:]-z]', /may not end a range/],
    ['re:[a-c-e]', /right after a range/],
    ['re:[[.a.]]', /collating elements/],
    ['re:[[=a=]]', /collating elements/],
    ['re:[[:^alpha:]]', /no such class/],
    ['re:api\\B', /may not use \\B/],
    ['re:\\12', /octal escapes in RE2, back-references in PostgreSQL/],
    ['re:\\0', /octal/],
    ['re:^*a', /may not repeat \^ or \$/],
    ['re:a$?', /may not repeat \^ or \$/],
    ['re:a${2}', /may not repeat \^ or \$/],
    ['re:a{1', /a \{ and a digit/],
    ['re:a{2,x', /a \{ and a digit/],
    ['re:(?i:a)b', /no flags but a leading/],
    ['re:(?P<n>a)', /no named groups/],
    ['re:(?i)(?i)a', /no flags but a leading/],
    ['re:\\pL', /may not use \\p/],
    ['re:\\Qa.b\\E', /may not use \\Q/],
    [`re:${'a'.repeat(MAX_PATTERN_LENGTH)}`, /at most 256 characters/],
  ])('refuses %j', (text, reason) => {
    const p = parseExclusionPattern(text);
    expect(typeof p).toBe('string');
    expect(p).toMatch(reason);
  });

  it('matches a host under a wildcard zone at any depth, and never the zone itself or a look-alike', () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), label, (under, zone) => {
        const pattern = `*.${zone}.example.com`;
        expect(matches(pattern, `${under.join('.')}.${zone}.example.com`)).toBe(true);
        expect(matches(pattern, `${zone}.example.com`)).toBe(false);
        expect(matches(pattern, `${under.join('.')}.x${zone}.example.com`)).toBe(false);
      }),
    );
  });
});
