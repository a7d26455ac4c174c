const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * A name a source reported, reduced to a host under the root domain: lower case, surrounding space, a
 * trailing dot and a leading "*." removed. Null when what is left is not a valid host name strictly below
 * the root domain (e-mail addresses, other domains, the root itself, junk).
 */
export function normalizeHostName(raw: string, rootDomain: string): string | null {
  let name = raw.trim().toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  while (name.startsWith('*.')) name = name.slice(2);
  if (name.length > 253 || !name.endsWith(`.${rootDomain}`)) return null;
  const labels = name.slice(0, -(rootDomain.length + 1)).split('.');
  return labels.every((l) => LABEL.test(l)) ? name : null;
}

/** Valid, distinct hosts under the root domain, and how many reported (non-blank) names were dropped. */
export function normalizeAll(raw: Iterable<string>, rootDomain: string): { hosts: string[]; dropped: number } {
  const hosts = new Set<string>();
  let dropped = 0;
  for (const name of raw) {
    if (name.trim() === '') continue; // blank lines are no names at all
    const host = normalizeHostName(name, rootDomain);
    if (host) hosts.add(host);
    else dropped++;
  }
  return { hosts: [...hosts], dropped };
}
