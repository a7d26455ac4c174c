import { readFileSync } from 'node:fs';
import type { Environment } from '../../config/environment.js';
import { mapLimit } from '../../common/concurrency.js';
import { DEFAULT_WORDLIST } from './default-wordlist.js';
import type { DnsResolver } from '../../intel/dns/dns-resolver.js';
import { type DiscoverySource, type SliceBudget, type SourceSlice, SourceError, wildcardAnswers } from './source.js';

interface Position {
  /** Next word to try. */
  index: number;
  /** What random labels under the domain resolve to; empty when the zone has no wildcard. */
  wildcard: string[];
}

const BATCH = 200;
const PROBES = 3;

/**
 * Brute force: resolves word.domain for each word of the list. A zone that answers random labels (a
 * wildcard) would make every word look real, so each answer is compared with what random labels get: a
 * name whose every address is a wildcard answer is not reported.
 */
export class DnsBruteSource implements DiscoverySource {
  readonly name = 'dns';
  private words: readonly string[] | null = null;

  constructor(
    private readonly env: Environment,
    private readonly resolver: DnsResolver,
  ) {}

  async run(domain: string, position: unknown, budget: SliceBudget): Promise<SourceSlice> {
    const words = this.wordlist();
    const at = (position as Position | null) ?? {
      index: 0,
      wildcard: await wildcardAnswers(domain, PROBES, (n) => this.resolver.resolve(n)),
    };
    const names: string[] = [];
    let index = at.index;
    while (index < words.length && Date.now() < budget.deadline && !budget.signal.aborted) {
      const batch = words.slice(index, index + BATCH);
      const answers = await mapLimit(batch, this.env.DNS_CONCURRENCY, (w) => this.resolver.resolve(`${w}.${domain}`));
      batch.forEach((word, i) => {
        const answer = answers[i];
        if (answer.status === 'yes' && !answer.addresses.every((a) => at.wildcard.includes(a)))
          names.push(`${word}.${domain}`);
      });
      index += batch.length;
    }
    return { names, next: index < words.length ? { index, wildcard: at.wildcard } : null };
  }

  private wordlist(): readonly string[] {
    if (this.words) return this.words;
    if (!this.env.DNS_WORDLIST) return (this.words = DEFAULT_WORDLIST);
    try {
      const lines = readFileSync(this.env.DNS_WORDLIST, 'utf8').split(/\r?\n/);
      this.words = [
        ...new Set(lines.map((l) => l.trim().toLowerCase()).filter((l) => /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(l))),
      ];
      return this.words;
    } catch (e) {
      throw new SourceError(
        `dns: cannot read DNS_WORDLIST: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
}
