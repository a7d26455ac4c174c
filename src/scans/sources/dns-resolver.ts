import { Resolver } from 'node:dns/promises';

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

  cancel(): void {
    this.resolver.cancel();
  }
}
