import { normalizeHostName } from '../discovery/sources/host-name.js';

export interface RootMatch {
  domainId: number;
  host: string;
}

/**
 * Which tracked roots a certificate name is a host of. A host lies strictly below its root, as in scans (the root
 * itself is no host of it): `a.b.example.com` is tried as `b.example.com`, then `example.com`, then `com`, each one
 * Set lookup, so a name costs O(labels) whatever the number of roots. A name under two tracked roots (only where
 * the Public Suffix List nests them, as amazonaws.com and bucket.s3.amazonaws.com) is a host of both, as a scan of
 * each would find it.
 */
export class RootMatcher {
  constructor(private readonly roots: ReadonlyMap<string, number>) {}

  get size(): number {
    return this.roots.size;
  }

  match(raw: string): RootMatch[] {
    if (raw.length > 260) return [];
    const name = raw.toLowerCase();
    const found: RootMatch[] = [];
    for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) {
      const domainId = this.roots.get(name.slice(dot + 1));
      if (domainId === undefined) continue;
      // The scans' own check: lower case, a leading "*." dropped, valid labels, 253 characters at most.
      const host = normalizeHostName(name, name.slice(dot + 1));
      if (host) found.push({ domainId, host });
    }
    return found;
  }
}
