import list from './takeover-fingerprints.json' with { type: 'json' };

/**
 * Subdomain-takeover fingerprints: the community list "Can I take over XYZ?" (repository
 * EdOverflow/can-i-take-over-xyz, commit 5bd4e12837911c8475486f1da922c9b9c706e632, 2025-02-08), licensed
 * CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/). Shipped as data (takeover-fingerprints.json), with the fields the service reads:
 * the CNAME suffixes that point at a service, the text its error page shows (or NXDOMAIN when a dangling alias
 * answers so), and the list's verdict. Regenerated from ../shared/fixtures/takeover/fingerprints.json, unchanged.
 */
export interface TakeoverFingerprint {
  service: string;
  cname: string[];
  fingerprint: string;
  nxdomain: boolean;
  http_status: number | null;
  status: string;
  vulnerable: boolean;
}

export const TAKEOVER_FINGERPRINTS: readonly TakeoverFingerprint[] = list;
