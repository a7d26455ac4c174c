/**
 * An RFC 6962 §4 client: get-sth (§4.3) and get-entries (§4.6). Answers are read with a byte limit, and a log that
 * says 429 or 503 is waited for as its Retry-After asks (seconds or an HTTP date), else with a growing back-off.
 */
export interface TreeHead {
  treeSize: number;
}

export class LogError extends Error {}

/** The most bytes one answer may have: a get-entries page of 1,000 large certificates fits well. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
/** Waits after a 429/503 without Retry-After, in seconds; the last repeats. Retry-After is capped at the last. */
const BACKOFF_SECONDS = [1, 2, 5, 10, 30, 60];
/** Busy answers (429/503) waited out in a row before the request fails. */
const BUSY_ATTEMPTS = 6;

export class Rfc6962Client {
  private readonly base: string;

  constructor(
    url: string,
    private readonly signal: AbortSignal,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  async getSth(): Promise<TreeHead> {
    const body = await this.getJson(`${this.base}/ct/v1/get-sth`);
    const size = (body as { tree_size?: unknown }).tree_size;
    if (!Number.isSafeInteger(size) || (size as number) < 0) throw new LogError('get-sth: no valid tree_size');
    return { treeSize: size as number };
  }

  /** Leaves from `start` to `end` inclusive; a log may give fewer (never none while start ≤ end < tree size). */
  async getEntries(start: number, end: number): Promise<Buffer[]> {
    const body = await this.getJson(`${this.base}/ct/v1/get-entries?start=${start}&end=${end}`);
    const entries = (body as { entries?: unknown }).entries;
    if (!Array.isArray(entries)) throw new LogError('get-entries: no entries array');
    if (entries.length > end - start + 1) throw new LogError('get-entries: more entries than asked for');
    return entries.map((e: { leaf_input?: unknown }) => {
      if (typeof e?.leaf_input !== 'string') throw new LogError('get-entries: an entry without leaf_input');
      return Buffer.from(e.leaf_input, 'base64');
    });
  }

  private async getJson(url: string): Promise<unknown> {
    for (let busy = 0; ; busy++) {
      const response = await fetch(url, {
        headers: { accept: 'application/json', 'user-agent': 'subdomain-monitor' },
        signal: AbortSignal.any([this.signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
      if ((response.status === 429 || response.status === 503) && busy < BUSY_ATTEMPTS - 1) {
        await response.body?.cancel();
        await sleep(retryAfterMs(response.headers.get('retry-after'), busy), this.signal);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new LogError(`${new URL(url).pathname}: HTTP ${response.status}`);
      }
      const text = await readBounded(response, MAX_BODY_BYTES);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new LogError(`${new URL(url).pathname}: the answer is not JSON`);
      }
    }
  }
}

/** How long a busy answer asks to wait: its Retry-After (delta-seconds or an HTTP date), else the back-off. */
export function retryAfterMs(header: string | null, attempt: number, now = Date.now()): number {
  const cap = BACKOFF_SECONDS.at(-1)! * 1000;
  const fallback = BACKOFF_SECONDS[Math.min(attempt, BACKOFF_SECONDS.length - 1)] * 1000;
  if (header === null) return fallback;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, cap);
  const date = Date.parse(value);
  return Number.isNaN(date) ? fallback : Math.min(Math.max(date - now, 0), cap);
}

async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > limit) {
    await response.body?.cancel();
    throw new LogError(`an answer of ${declared} bytes is over the ${limit}-byte limit`);
  }
  if (!response.body) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.length;
    if (read > limit) {
      await reader.cancel().catch(() => undefined);
      throw new LogError(`an answer over the ${limit}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
