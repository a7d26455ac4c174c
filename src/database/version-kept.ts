import { LRUCache } from 'lru-cache';
import type { Environment } from '../config/environment.js';
import type { DataVersion } from './data-version.js';

/**
 * Values read from the database, kept under the data version reads answer for (DataVersion.forReads), and dropped
 * when it moves: exact until a write moves the version. The version is taken before the read, so a value read while
 * a write commits is kept under the version before that write, which the next request no longer asks for. With read
 * replicas that is the version they are known to hold; while none is known, nothing is kept. Off with
 * RESPONSE_CACHE_MB=0.
 */
export class VersionKept<V extends NonNullable<unknown>> {
  private readonly kept: LRUCache<string, V> | null;

  constructor(
    private readonly version: DataVersion,
    env: Environment,
    max: number,
  ) {
    this.kept = env.RESPONSE_CACHE_MB > 0 ? new LRUCache({ max }) : null;
    version.onMove(() => this.kept?.clear());
  }

  /** The value kept for `key` and the version now, and a way to keep one read under that version. */
  at(key: string): { kept: V | undefined; keep: (value: V) => void } {
    const version = this.kept ? this.version.forReads() : null;
    if (version === null) return { kept: undefined, keep: () => undefined };
    const versioned = `${version}\n${key}`;
    return { kept: this.kept!.get(versioned), keep: (value) => this.kept!.set(versioned, value) };
  }
}
