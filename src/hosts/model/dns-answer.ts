/** What a host resolved to when last asked. */
export type DnsStatus = 'resolved' | 'nxdomain' | 'servfail' | 'timeout';

export interface DnsAnswer {
  status: DnsStatus;
  /** A and AAAA addresses, sorted, so the same set always reads the same. */
  a: string[];
  aaaa: string[];
  /** The CNAME chain in order, from the host's own alias to the last name before the addresses. */
  cname: string[];
}

/** How many CNAME hops are followed: a loop or an absurd chain stops there. */
export const MAX_CNAME_HOPS = 8;

/** node:dns error codes that mean the server answered "no such name" or "no such record". */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);
/** Codes that mean no answer came at all. */
const NO_ANSWER = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ECANCELLED', 'EDESTRUCTION']);

/** One lookup's outcome: its records, or the error code node:dns gave. */
export type Lookup = { records: string[] } | { code: string };

/**
 * The status of a host from its lookups (A, AAAA, and the CNAME chain): resolved when any address came back;
 * otherwise timeout when a lookup got no answer, servfail when a server answered with a failure, and nxdomain
 * when every server said the name (or the end of its alias chain) has no address.
 */
export function dnsStatus(addresses: number, lookups: Lookup[]): DnsStatus {
  if (addresses > 0) return 'resolved';
  const codes = lookups.flatMap((l) => ('code' in l ? [l.code] : []));
  if (codes.some((c) => NO_ANSWER.has(c))) return 'timeout';
  if (codes.some((c) => !ABSENT.has(c))) return 'servfail';
  return 'nxdomain';
}

/** Addresses sorted as numbers would be, so 10.0.0.2 comes before 10.0.0.10 and the order never shows a change. */
export function sortAddresses(addresses: string[]): string[] {
  const key = (a: string) =>
    a.includes(':')
      ? a
      : a
          .split('.')
          .map((p) => p.padStart(3, '0'))
          .join('.');
  return [...new Set(addresses.map((a) => a.toLowerCase()))].sort((x, y) =>
    key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0,
  );
}

/** Whether a host counts as seen (is_active) by this answer: it resolves to an address or is an alias. */
export const answerSeen = (answer: DnsAnswer) => answer.status === 'resolved' || answer.cname.length > 0;
