import { Resolver } from 'node:dns/promises';
import { type DnsAnswer, dnsStatus, type Lookup, MAX_CNAME_HOPS, sortAddresses } from '../../hosts/model/dns-answer.js';

export type Resolution =
  { status: 'yes'; addresses: string[] } | { status: 'no' } | { status: 'unknown'; reason: string };

// Answers that mean "this name has no such record" rather than "the server could not be asked".
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);

/** Resolves names (A, then AAAA, then CNAME) against the configured servers, telling absence from failure. */
export class DnsResolver {
  private readonly resolver: Resolver;

  constructor(servers: string[] | undefined, timeoutMs: number) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers && servers.length > 0) this.resolver.setServers(servers);
  }

  async resolve(name: string): Promise<Resolution> {
    const lookups: (() => Promise<string[]>)[] = [
      () => this.resolver.resolve4(name),
      () => this.resolver.resolve6(name),
      () => this.resolver.resolveCname(name),
    ];
    let failure: string | null = null;
    for (const lookup of lookups) {
      try {
        const addresses = await lookup();
        if (addresses.length > 0) return { status: 'yes', addresses };
      } catch (e) {
        const code = (e as { code?: string }).code ?? 'EUNKNOWN';
        if (!ABSENT.has(code)) failure = code;
      }
    }
    return failure ? { status: 'unknown', reason: failure } : { status: 'no' };
  }

  /**
   * One A query: what a candidate name needs to tell whether it exists (the permute source). A name with only an
   * AAAA record or a dangling alias answers no here; the liveness phase asks a found name everything.
   */
  async addresses(name: string): Promise<Resolution> {
    try {
      const addresses = await this.resolver.resolve4(name);
      return addresses.length > 0 ? { status: 'yes', addresses } : { status: 'no' };
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'EUNKNOWN';
      return ABSENT.has(code) ? { status: 'no' } : { status: 'unknown', reason: code };
    }
  }

  /**
   * Everything a host resolves to: A and AAAA (asked at once, beside the host's own CNAME), then the rest of the
   * alias chain, one hop at a time, up to MAX_CNAME_HOPS. Used where the answer is kept (the liveness phase);
   * brute force only needs resolve().
   */
  async answer(name: string): Promise<DnsAnswer> {
    const [a, aaaa, first] = await Promise.all([
      this.lookup(() => this.resolver.resolve4(name)),
      this.lookup(() => this.resolver.resolve6(name)),
      this.lookup(() => this.resolver.resolveCname(name)),
    ]);
    const cname: string[] = [];
    let hop = first;
    while ('records' in hop && hop.records.length > 0 && cname.length < MAX_CNAME_HOPS) {
      const target = hop.records[0].toLowerCase().replace(/\.$/, '');
      if (cname.includes(target)) break;
      cname.push(target);
      hop = await this.lookup(() => this.resolver.resolveCname(target));
    }
    const v4 = 'records' in a ? sortAddresses(a.records) : [];
    const v6 = 'records' in aaaa ? sortAddresses(aaaa.records) : [];
    return { status: dnsStatus(v4.length + v6.length, [a, aaaa]), a: v4, aaaa: v6, cname };
  }

  private async lookup(query: () => Promise<string[]>): Promise<Lookup> {
    try {
      return { records: await query() };
    } catch (e) {
      return { code: (e as { code?: string }).code ?? 'EUNKNOWN' };
    }
  }

  cancel(): void {
    this.resolver.cancel();
  }
}
