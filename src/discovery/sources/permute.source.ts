import type { Environment } from '../../config/environment.js';
import { mapLimit } from '../../common/concurrency.js';
import type { DnsResolver } from '../../intel/dns/dns-resolver.js';
import { zoneOf } from '../../hosts/store/wildcard.sql.js';
import { type Candidate, candidatesFor, type Pattern } from '../permute/naming.js';
import type { PermuteRepository, PermuteStats, Yields } from '../permute/permute.repository.js';
import {
  type DiscoverySource,
  type SliceBudget,
  type SourceSlice,
  type SourceTarget,
  wildcardAnswers,
} from './source.js';

interface Position {
  /** The candidates of this scan, best first: [host, pattern]. */
  candidates: [string, Pattern][];
  index: number;
  /** What random labels under each zone checked so far answer (empty: no wildcard). */
  zones: Record<string, string[]>;
  stats: PermuteStats;
  /** The queries the scan may send: PERMUTE_BUDGET, or PERMUTE_EVENT_BUDGET for an event scan. */
  budget: number;
}

/**
 * The names an event scan learns from at most: a root of 100,000 hosts cost 1.3 s of one core to learn whole, which
 * an event scan (as often as once a PERMUTE_EVENT_SECONDS) must not take from the process's other work.
 */
const EVENT_NAMES = 20_000;

/** Of a large root's names, those of the seeds' zones first, then the others, EVENT_NAMES in all. */
export function aroundSeeds(known: string[], seeds: ReadonlySet<string>): string[] {
  if (known.length <= EVENT_NAMES) return known;
  const zones = new Set([...seeds].map(zoneOf));
  const near = known.filter((h) => zones.has(zoneOf(h)));
  const far = known.filter((h) => !zones.has(zoneOf(h)));
  return [...near, ...far].slice(0, EVENT_NAMES);
}

/** Candidates resolved a batch, and random labels asked per zone for its wildcard answer. */
const BATCH = 200;
const WILDCARD_PROBES = 2;

/**
 * Permutations: learns each root's naming from the hosts it holds (every source's, the CT follower's too) and
 * asks DNS for the names that follow (permute/naming.ts), the best-ranked first, within PERMUTE_BUDGET queries a
 * root a scan. A candidate costs one A query; one that answers costs a second, to DNS_TRUSTED_SERVERS (or the same
 * servers), and is reported only when both answer with an address that is not its zone's wildcard answer, so a
 * flaky or poisoned resolver cannot fill the table. A candidate that does not resolve is not tried again for
 * PERMUTE_RETRY_DAYS; one whose lookup failed is (it was not answered). Each pattern's hit rate on the root steers
 * the next scan's ranking. An event scan (hosts the CT follower just found) asks only what those hosts suggest,
 * within PERMUTE_EVENT_BUDGET.
 */
export class PermuteSource implements DiscoverySource {
  readonly name = 'permute';

  constructor(
    private readonly env: Environment,
    private readonly resolver: DnsResolver,
    private readonly confirmer: DnsResolver,
    private readonly repository: PermuteRepository,
  ) {}

  async run(domain: string, position: unknown, budget: SliceBudget, target: SourceTarget): Promise<SourceSlice> {
    const at = (position as Position | null) ?? (await this.start(domain, target));
    const names: string[] = [];
    // A position saved before scans carried their budget spends the root's.
    const spend = at.budget ?? this.env.PERMUTE_BUDGET;
    while (at.index < at.candidates.length && Date.now() < budget.deadline && !budget.signal.aborted) {
      const batch = at.candidates.slice(at.index, at.index + BATCH);
      // The batch's zones not checked yet: random labels under each, and what they answer is an echo.
      const zones = [...new Set(batch.map(([host]) => zoneOf(host)))].filter((z) => !(z in at.zones));
      const room = spend - at.stats.queries;
      if (room < zones.length * WILDCARD_PROBES + 2) break;
      const echoes = await mapLimit(zones, this.env.DNS_CONCURRENCY, (zone) =>
        wildcardAnswers(zone, WILDCARD_PROBES, (name) => this.resolver.addresses(name)),
      );
      zones.forEach((zone, i) => (at.zones[zone] = echoes[i]));
      at.stats.queries += zones.length * WILDCARD_PROBES;
      // As many candidates as the budget leaves room for; a hit it leaves no room to confirm waits for the next scan.
      const asked = batch.slice(0, Math.max(0, spend - at.stats.queries));
      const answers = await mapLimit(asked, this.env.DNS_CONCURRENCY, ([host]) => this.resolver.addresses(host));
      at.stats.queries += asked.length;
      const echo = (host: string, addresses: string[]) => {
        const wildcard = at.zones[zoneOf(host)] ?? [];
        return wildcard.length > 0 && addresses.every((a) => wildcard.includes(a));
      };
      const answered = asked.filter(([host], i) => {
        const a = answers[i];
        return a.status === 'yes' && !echo(host, a.addresses);
      });
      const confirmable = answered.slice(0, Math.max(0, spend - at.stats.queries));
      const second = await mapLimit(confirmable, this.env.DNS_CONCURRENCY, ([host]) => this.confirmer.addresses(host));
      at.stats.queries += confirmable.length;
      // What the confirmation said of each name it was asked: there, gone (a one-off answer), or no answer.
      const confirmed = new Map<string, 'yes' | 'no' | 'unknown'>();
      confirmable.forEach(([host], i) => {
        const c = second[i];
        confirmed.set(host, c.status === 'yes' ? (echo(host, c.addresses) ? 'no' : 'yes') : c.status);
      });
      const tally: Yields = {};
      const misses: string[] = [];
      asked.forEach(([host, pattern], i) => {
        const y = (tally[pattern] ??= { tried: 0, hits: 0 });
        y.tried++;
        const verdict = confirmed.get(host);
        if (verdict === 'yes') {
          y.hits++;
          at.stats.hits++;
          names.push(host);
          return;
        }
        // No such name, its zone's echo, or an answer the second server did not give: not worth asking again for a
        // while. A failed lookup, or a hit the budget left unconfirmed, is asked again next time.
        const first = answers[i];
        if (first.status === 'no' || verdict === 'no' || (first.status === 'yes' && echo(host, first.addresses))) {
          misses.push(host);
        }
      });
      await this.repository.recordBatch(target.domainId, misses, tally);
      at.index += asked.length;
      if (asked.length < batch.length) break; // the budget is spent
    }
    // Every candidate asked, or no room left for one more and its confirmation: the source is done with the root.
    if (at.index >= at.candidates.length || spend - at.stats.queries < 2) {
      await this.repository.recordStats(target.scanId, at.stats);
      return { names, next: null };
    }
    return { names, next: at };
  }

  /**
   * The scan's candidates: what the root's names suggest (an event scan's: what its seeds suggest), ranked by the
   * root's yields, the lately tried left out.
   */
  private async start(domain: string, target: SourceTarget): Promise<Position> {
    const [known, skip, yields, seeds] = await Promise.all([
      this.repository.knownNames(target.domainId, target.scanId),
      this.repository.recentlyTried(target.domainId, this.env.PERMUTE_RETRY_DAYS),
      this.repository.yields(target.domainId),
      target.seedsFrom === null ? null : this.repository.seeds(target.domainId, target.seedsFrom),
    ]);
    const budget = seeds ? this.env.PERMUTE_EVENT_BUDGET : this.env.PERMUTE_BUDGET;
    const ranked: Candidate[] =
      seeds?.size === 0
        ? []
        : candidatesFor(domain, seeds ? aroundSeeds(known, seeds) : known, {
            depth: this.env.PERMUTE_DEPTH,
            limit: budget,
            // A name left out of what is learned is still known: never a candidate.
            skip: seeds && known.length > EVENT_NAMES ? new Set([...skip, ...known]) : skip,
            yields,
            seeds: seeds ?? undefined,
          });
    return {
      candidates: ranked.map((c) => [c.host, c.pattern]),
      index: 0,
      zones: {},
      stats: { candidates: ranked.length, queries: 0, hits: 0 },
      budget,
    };
  }
}
