import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Environment } from '../../config/environment.js';
import { Drainer } from '../drainer.js';
import { NewHostSignal } from '../../events/new-host-signal.js';
import { mapLimit } from '../../common/concurrency.js';
import { DnsResolver } from './dns-resolver.js';
import { HostDnsRepository } from './host-dns.repository.js';
import { HostProber } from '../probe/host-prober.service.js';

/** Names resolved per round: one statement picks those never resolved, one transaction keeps their answers. */
const ROUND = 500;
/** Names waiting at most; past it, more are dropped and the next scan of their domain resolves them. */
const MAX_WAITING = 100_000;

/**
 * Resolves the hosts the CT follower records (with RESOLVE=on), soon after they arrive, so that they carry their
 * DNS answer (and a dangling alias its takeover flag) within seconds rather than at their domain's next scan.
 * In process memory: a restart forgets what was waiting, and the next scan of each domain resolves it.
 */
@Injectable()
export class HostResolver extends Drainer implements OnModuleDestroy {
  private readonly logger = new Logger('HostResolver');
  private readonly resolver: DnsResolver;
  private readonly waiting = new Map<number, Set<string>>();
  private size = 0;
  private dropped = 0;

  constructor(
    private readonly env: Environment,
    private readonly store: HostDnsRepository,
    private readonly signal: NewHostSignal,
    private readonly prober: HostProber,
  ) {
    super();
    this.resolver = new DnsResolver(env.DNS_SERVERS, env.DNS_TIMEOUT_MS);
  }

  /** Hands over names just recorded under a domain; those already resolved are passed over when their turn comes. */
  enqueue(domainId: number, hosts: Iterable<string>): void {
    if (this.env.RESOLVE !== 'on' || this.stopped) return;
    let names = this.waiting.get(domainId);
    if (!names) this.waiting.set(domainId, (names = new Set()));
    for (const host of hosts) {
      if (names.has(host)) continue;
      if (this.size >= MAX_WAITING) {
        if (this.dropped++ === 0) this.logger.warn(`more than ${MAX_WAITING} hosts wait to be resolved; passing over`);
        continue;
      }
      names.add(host);
      this.size++;
    }
    this.kick();
  }

  async onModuleDestroy(): Promise<void> {
    const stopping = this.stop();
    this.resolver.cancel();
    await stopping;
  }

  protected async drain(): Promise<void> {
    while (!this.stopped) {
      const next = this.waiting.entries().next();
      if (next.done) return;
      const [domainId, names] = next.value;
      const round = [...names].slice(0, ROUND);
      for (const host of round) names.delete(host);
      if (names.size === 0) this.waiting.delete(domainId);
      this.size -= round.length;
      try {
        const hosts = await this.store.neverResolved(domainId, round);
        const answers = await mapLimit(hosts, this.env.DNS_CONCURRENCY, (h) => this.resolver.answer(h));
        if (this.stopped) return;
        const kept = hosts.map((host, i) => ({ host, ...answers[i] }));
        if ((await this.store.record(domainId, kept)) > 0) await this.signal.publish(domainId);
        this.prober.enqueue(domainId, kept);
      } catch (e) {
        this.logger.warn(`could not resolve ${round.length} new hosts: ${(e as Error).message}`);
      }
    }
  }
}
