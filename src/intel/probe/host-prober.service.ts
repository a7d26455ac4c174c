import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Environment } from '../../config/environment.js';
import { Drainer } from '../drainer.js';
import { NewHostSignal } from '../../events/new-host-signal.js';
import { mapLimit } from '../../common/concurrency.js';
import { DnsResolver } from '../dns/dns-resolver.js';
import type { DnsAnswer } from '../../hosts/model/dns-answer.js';
import { HostDnsRepository } from '../dns/host-dns.repository.js';
import { probeHost } from './http-probe.js';
import { takeoverByBody } from '../takeover/takeover.js';

/** Hosts probed per round; their results are kept in one transaction. */
const ROUND = 200;
/** Hosts waiting at most; past it, more are passed over until their next answer. */
const MAX_WAITING = 50_000;

interface Waiting {
  domainId: number;
  host: string;
  answer: DnsAnswer;
}

/**
 * Probes the web server of every host that resolves (PROBE=on), as its DNS answer comes in: from a scan's liveness
 * phase or from the resolution of a host the CT follower found. At the host's own addresses, never a private one
 * unless PROBE_PRIVATE=on. In process memory, like HostResolver: what waits at a restart is probed at its next answer.
 */
@Injectable()
export class HostProber extends Drainer implements OnModuleDestroy {
  private readonly logger = new Logger('HostProber');
  private readonly resolver: DnsResolver;
  private readonly waiting = new Map<string, Waiting>();
  private dropped = 0;

  constructor(
    private readonly env: Environment,
    private readonly store: HostDnsRepository,
    private readonly signal: NewHostSignal,
  ) {
    super();
    this.resolver = new DnsResolver(env.DNS_SERVERS, env.DNS_TIMEOUT_MS);
  }

  /** Hands over hosts of a domain with their fresh DNS answers; those without an address are not probed. */
  enqueue(domainId: number, answers: (DnsAnswer & { host: string })[]): void {
    if (this.env.PROBE !== 'on' || this.stopped) return;
    for (const { host, ...answer } of answers) {
      if (answer.a.length + answer.aaaa.length === 0) continue;
      if (this.waiting.size >= MAX_WAITING && !this.waiting.has(`${domainId}/${host}`)) {
        if (this.dropped++ === 0) this.logger.warn(`more than ${MAX_WAITING} hosts wait to be probed; passing over`);
        continue;
      }
      this.waiting.set(`${domainId}/${host}`, { domainId, host, answer });
    }
    this.kick();
  }

  /**
   * The hosts of a round that no exclusion rule names, read as the round starts: hosts out of scope are resolved
   * (their DNS is knowledge like any other) but never probed, since a program that excludes a host does not
   * want it touched.
   */
  private async inScope(round: [string, Waiting][]): Promise<[string, Waiting][]> {
    const domains = new Map<number, { host: string }[]>();
    for (const [, w] of round) domains.set(w.domainId, [...(domains.get(w.domainId) ?? []), w]);
    const kept = new Set<{ host: string }>();
    for (const [domainId, hosts] of domains) for (const w of await this.store.inScope(domainId, hosts)) kept.add(w);
    return round.filter(([, w]) => kept.has(w));
  }

  async onModuleDestroy(): Promise<void> {
    const stopping = this.stop();
    this.resolver.cancel();
    await stopping;
  }

  protected async drain(): Promise<void> {
    const opts = {
      ports: this.env.PROBE_PORTS,
      timeoutMs: this.env.PROBE_TIMEOUT_MS,
      maxRedirects: this.env.PROBE_MAX_REDIRECTS,
      allowPrivate: this.env.PROBE_PRIVATE === 'on',
      resolve: async (name: string) => {
        const answer = await this.resolver.answer(name);
        return [...answer.a, ...answer.aaaa];
      },
    };
    while (!this.stopped && this.waiting.size > 0) {
      const taken = [...this.waiting.entries()].slice(0, ROUND);
      for (const [key] of taken) this.waiting.delete(key);
      const round = await this.inScope(taken).catch((e: Error) => {
        this.logger.warn(`${taken.length} hosts not probed, the database is not answering: ${e.message}`);
        return [];
      });
      const outcomes = await mapLimit(round, this.env.PROBE_CONCURRENCY, ([, w]) =>
        probeHost(w.host, [...w.answer.a, ...w.answer.aaaa], opts).catch(() => null),
      );
      const byDomain = new Map<number, Parameters<HostDnsRepository['recordProbes']>[1]>();
      round.forEach(([, w], i) => {
        const outcome = outcomes[i];
        if (!outcome) return; // every address special-use: nothing was probed, nothing is kept
        const probes = byDomain.get(w.domainId) ?? [];
        probes.push({ host: w.host, ...outcome.probe, takeover: takeoverByBody(w.answer.cname, outcome.body) });
        byDomain.set(w.domainId, probes);
      });
      for (const [domainId, probes] of byDomain) {
        if (this.stopped) return;
        try {
          if ((await this.store.recordProbes(domainId, probes)) > 0) await this.signal.publish(domainId);
        } catch (e) {
          this.logger.warn(`could not keep ${probes.length} probes: ${(e as Error).message}`);
        }
      }
    }
  }
}
