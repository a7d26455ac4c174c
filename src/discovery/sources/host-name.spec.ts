import { normalizeAll, normalizeHostName } from './host-name.js';

describe('host name normalisation', () => {
  it.each([
    ['www.example.com', 'www.example.com'],
    ['WWW.Example.COM', 'www.example.com'],
    ['api.example.com.', 'api.example.com'],
    ['*.api.example.com', 'api.example.com'],
    ['*.*.deep.example.com', 'deep.example.com'],
    ['  spaced.example.com  ', 'spaced.example.com'],
    ['_dmarc.example.com', '_dmarc.example.com'],
    ['a-b.c-d.example.com', 'a-b.c-d.example.com'],
  ])('reduces %j to %s', (raw, host) => expect(normalizeHostName(raw, 'example.com')).toBe(host));

  it.each([
    'example.com',
    '*.example.com',
    'admin@example.com',
    'other.org',
    'notexample.com',
    'x.example.com.evil.org',
    'bad host.example.com',
    '-lead.example.com',
    'a..example.com',
    `${'a'.repeat(64)}.example.com`,
    'ünicode.example.com',
  ])('drops %j', (raw) => expect(normalizeHostName(raw, 'example.com')).toBeNull());

  it('deduplicates, counts what it drops and ignores blank lines', () => {
    expect(
      normalizeAll(['a.example.com', 'A.example.com.', '', '   ', 'x@example.com', 'other.org'], 'example.com'),
    ).toEqual({
      hosts: ['a.example.com'],
      dropped: 2,
    });
  });
});
