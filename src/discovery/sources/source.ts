import type { ScanSourceName } from '../../config/environment.js';

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
}

/** A way to discover names under a root domain, resumable from the position its last slice returned. */
export interface DiscoverySource {
  readonly name: ScanSourceName;
  run(domain: string, position: unknown, budget: SliceBudget, target: SourceTarget): Promise<SourceSlice>;
}

/** A source that could not deliver; the scan ends in error with this message. */
export class SourceError extends Error {}
