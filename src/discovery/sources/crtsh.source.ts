import { fetchBounded } from '../../common/http/bounded-fetch.js';
import type { Environment } from '../../config/environment.js';
import { withRetry } from '../../common/concurrency.js';
import { type DiscoverySource, type SliceBudget, type SourceSlice, SourceError } from './source.js';

interface CrtshEntry {
  name_value?: unknown;
}

/** Certificate transparency: every name in certificates issued under the domain, from a crt.sh-style JSON search. */
export class CrtshSource implements DiscoverySource {
  readonly name = 'crtsh';

  constructor(private readonly env: Environment) {}

  async run(domain: string, _position: unknown, budget: SliceBudget): Promise<SourceSlice> {
    const url = `${this.env.CRTSH_URL.replace(/\/+$/, '')}/?q=${encodeURIComponent(`%.${domain}`)}&output=json`;
    try {
      const entries = await withRetry(this.env.SOURCE_ATTEMPTS, budget.signal, () =>
        this.fetchOnce(url, budget.signal),
      );
      const names = entries.flatMap((e) => (typeof e.name_value === 'string' ? e.name_value.split('\n') : []));
      return { names, next: null };
    } catch (e) {
      throw new SourceError(`crtsh: ${(e as Error).message} (after ${this.env.SOURCE_ATTEMPTS} attempts)`);
    }
  }

  private async fetchOnce(url: string, signal: AbortSignal): Promise<CrtshEntry[]> {
    const text = await fetchBounded(url, {
      maxMiB: this.env.FETCH_MAX_MB,
      headers: { accept: 'application/json', 'user-agent': 'subdomain-monitor' },
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.env.CRTSH_TIMEOUT_SECONDS * 1000)]),
    });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error('the answer is not JSON');
    }
    if (!Array.isArray(body)) throw new Error('the answer is not a JSON array');
    return body as CrtshEntry[];
  }
}
