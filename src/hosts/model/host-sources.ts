import type { ScanSourceName } from '../../config/environment.js';

/** Where a host was found: the CT follower, or a scan's source. */
export type HostSource = 'ct' | ScanSourceName;

/**
 * Each source's bit in hosts.sources and scan_names.sources; host_sources() (text[]) and host_sources_json() (json)
 * in SQL name them in this order. A new source redefines both functions.
 */
export const SOURCE_BITS: Record<HostSource, number> = { ct: 1, crtsh: 2, dns: 4, command: 8, permute: 16 };

export const HOST_SOURCES = Object.keys(SOURCE_BITS) as HostSource[];

/** The sources that guess names rather than read them somewhere: a host only they found may be a wildcard's echo. */
export const GUESSED = SOURCE_BITS.dns | SOURCE_BITS.permute;

/**
 * Whether guesses alone found the host whose sources are `sources` (a column): only such a host can be a wildcard
 * echo (host_intel.wildcard), which the store keeps so — recordAnswers flags no other, and upsertSeenHosts clears
 * the flag of a host another source names.
 */
export const guessedOnly = (sources: string) => `(${sources} | ${GUESSED}) = ${GUESSED}`;

/**
 * The select expression of a host row's `sources` array, as json: the arrays are looked up, not built (see
 * migration HostSourcesJson), and row_to_json writes a json value as it is; pg and PGlite read it as an array.
 */
export const sourcesSql = (alias = 'h') => `host_sources_json(${alias}.sources) AS sources`;
