import { randomBytes } from 'node:crypto';
import type { ScanSourceName } from '../../config/environment.js';
import type { Resolution } from '../../intel/dns/dns-resolver.js';

/** What one slice of a source produced, and where the next slice starts (null when the source is done). */
export interface SourceSlice {
  names: string[];
  next: unknown;
}

export interface SliceBudget {
  /** Epoch milliseconds by which the slice should yield. */
  deadline: number;
  signal: AbortSignal;
}

/** The scan a slice works for: its root domain's id and its own (for sources that read what the root holds). */
export interface SourceTarget {
  domainId: number;
  scanId: string;
  /** An event scan's: only the root's hosts first seen since then seed it (ISO); null for a scan of the root. */
  seedsFrom: string | null;
}

/** A way to discover names under a root domain, resumable from the position its last slice returned. */
export interface DiscoverySource {
  readonly name: ScanSourceName;
  run(domain: string, position: unknown, budget: SliceBudget, target: SourceTarget): Promise<SourceSlice>;
}

/** A source that could not deliver; the scan ends in error with this message. */
export class SourceError extends Error {}

/**
 * What `probes` random labels under a zone resolve to, asked one after another with `resolve`: a wildcard's
 * answers, which a guessed name must not merely echo; empty when the zone has no wildcard.
 */
export async function wildcardAnswers(
  zone: string,
  probes: number,
  resolve: (name: string) => Promise<Resolution>,
): Promise<string[]> {
  const answers = new Set<string>();
  for (let i = 0; i < probes; i++) {
    const probe = await resolve(`sm-${randomBytes(8).toString('hex')}.${zone}`);
    if (probe.status === 'yes') probe.addresses.forEach((a) => answers.add(a));
  }
  return [...answers];
}
