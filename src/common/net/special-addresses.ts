import ipaddr from 'ipaddr.js';

/**
 * Whether an address is outside the public unicast space: private, loopback, link-local, unique-local, shared
 * (carrier-grade NAT), documentation, benchmarking, multicast, reserved or unspecified (ipaddr.js's ranges, from
 * the IANA special-purpose registries). An IPv4 address mapped into IPv6 is judged as the IPv4 address it is. A
 * string that is not an address counts as special: the safe answer for a check that guards outbound connections.
 */
export function isSpecialUse(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() !== 'unicast';
}

/** Letters whose names start with a vowel sound: "an FBI", "an MRI", "an SMTP", "an AMT". */
const VOWEL_SOUNDING_LETTERS = /^[aefhilmnorsx]$/i;

/**
 * The indefinite article a word takes, from how it is said rather than its first letter alone, whatever its case:
 * "an" before a vowel sound (an IPv4-embedded, an ORCHIDv2, an unspecified, an AMT, an 8, an hour) and "a" before
 * a consonant sound (a 6to4, a Teredo, a unique local, a URL, a one-way). A word that starts with two capitals
 * (IPv4, AS112) is said letter by letter.
 */
export function indefiniteArticle(word: string): 'a' | 'an' {
  const text = word.trim();
  const digits = /^\d+/.exec(text)?.[0];
  // eight…, eighty…, eleven, eighteen (and their thousands, millions): the numbers said with a vowel first.
  if (digits) return digits.startsWith('8') || (/^1[18]/.test(digits) && digits.length % 3 === 2) ? 'an' : 'a';
  if (/^[A-Z][A-Z0-9]/.test(text)) return VOWEL_SOUNDING_LETTERS.test(text[0]) ? 'an' : 'a';
  const lower = text.toLowerCase();
  if (/^(?:hour|honest|hono|heir)/.test(lower)) return 'an';
  // The vowels said as a consonant: unique, user, usual, utility, euro, one, once.
  if (/^(?:u(?:ni|s[eu]|ti|r[ei]|b[iu]|k)|eu|one\b|once)/.test(lower)) return 'a';
  return /^[aeiou]/.test(lower) ? 'an' : 'a';
}
