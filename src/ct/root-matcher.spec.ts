import { RootMatcher } from './root-matcher.js';

describe('matching certificate names to tracked roots', () => {
  const matcher = new RootMatcher(
    new Map([
      ['example.com', 1],
      ['shop.example.com', 2],
      ['example.org', 3],
    ]),
  );

  it.each([
    ['www.example.com', [{ domainId: 1, host: 'www.example.com' }]],
    ['WWW.Example.COM', [{ domainId: 1, host: 'www.example.com' }]],
    ['*.api.example.com', [{ domainId: 1, host: 'api.example.com' }]],
    [
      'a.shop.example.com',
      [
        { domainId: 2, host: 'a.shop.example.com' },
        { domainId: 1, host: 'a.shop.example.com' },
      ],
    ],
    ['shop.example.com', [{ domainId: 1, host: 'shop.example.com' }]],
  ])('matches %s', (name, expected) => expect(matcher.match(name)).toEqual(expected));

  it.each([
    'example.com',
    '*.example.com',
    'evilexample.com',
    'example.com.evil.net',
    'unrelated.net',
    '10.0.0.1',
    'bad_label-.example.com',
    'spa ce.example.com',
    `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.example.com`,
  ])('matches nothing for %s', (name) => expect(matcher.match(name)).toEqual([]));
});
