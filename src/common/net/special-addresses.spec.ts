import { indefiniteArticle, isSpecialUse } from './special-addresses.js';

describe('isSpecialUse', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '127.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '192.0.2.10',
    '198.51.100.7',
    '203.0.113.5',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '2001:db8::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-address',
    '',
  ])('refuses %s', (address) => expect(isSpecialUse(address)).toBe(true));

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) =>
    expect(isSpecialUse(address)).toBe(false),
  );
});

describe('indefiniteArticle', () => {
  // The names of ipaddr.js's ranges as refusals say them, and words that start with a vowel letter said otherwise.
  it.each([
    ['IPv4-embedded', 'an'],
    ['ipv4-embedded', 'an'],
    ['IPV4-mapped', 'an'],
    ['IPv4-translated', 'an'],
    ['ORCHIDv2', 'an'],
    ['AMT', 'an'],
    ['AS112', 'an'],
    ['unspecified', 'an'],
    ['Unspecified', 'an'],
    ['8-bit', 'an'],
    ['11th', 'an'],
    ['hour', 'an'],
    ['6to4', 'a'],
    ['Teredo', 'a'],
    ['unique local (private)', 'a'],
    ['Unique local', 'a'],
    ['URL', 'a'],
    ['link-local', 'a'],
    ['carrier-grade NAT', 'a'],
    ['benchmarking', 'a'],
    ['one-way', 'a'],
    ['European', 'a'],
    ['loopback', 'a'],
    ['multicast', 'a'],
    ['reserved', 'a'],
    ['110', 'a'],
  ])('%s takes "%s"', (word, article) => expect(indefiniteArticle(word)).toBe(article));
});
