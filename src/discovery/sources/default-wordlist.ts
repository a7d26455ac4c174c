import words from './default-wordlist.json' with { type: 'json' };

/** The dns source's built-in word list (default-wordlist.json): common subdomain labels, used when DNS_WORDLIST is unset. */
export const DEFAULT_WORDLIST: readonly string[] = words;
