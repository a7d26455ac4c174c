import { readBodyBounded } from '../common/http/bounded-fetch.js';

/** Why reading a log failed; the message names the path and the status, never the body. */
export class LogError extends Error {}

/** The most bytes one answer may have: a get-entries page of 1,000 large certificates fits well. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
/** Waits after a 429/503 without Retry-After, in seconds; the last repeats. Retry-After is capped at the last. */
const BACKOFF_SECONDS = [1, 2, 5, 10, 30, 60];
/** Busy answers (429/503) waited out in a row before the request fails. */
const BUSY_ATTEMPTS = 6;

/**
 * GETs one resource of a log: a 429 or 503 is waited out as its Retry-After asks (seconds or an HTTP date), else
 * with a growing back-off; the body is read up to MAX_BODY_BYTES (after gzip, which static logs may send
 * unasked). Returns null for a 404 when `missingOk`; any other failure throws LogError.
 */
export async function logGet(url: string, signal: AbortSignal, accept: string, missingOk = false) {
  for (let busy = 0; ; busy++) {
    const response = await fetch(url, {
      headers: { accept, 'accept-encoding': 'gzip, identity', 'user-agent': 'subdomain-monitor' },
      signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
    });
    if ((response.status === 429 || response.status === 503) && busy < BUSY_ATTEMPTS - 1) {
      await response.body?.cancel();
      await sleep(retryAfterMs(response.headers.get('retry-after'), busy), signal);
      continue;
    }
    if (response.status === 404 && missingOk) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new LogError(`${new URL(url).pathname}: HTTP ${response.status}`);
    }
    const body = await readBodyBounded(response, MAX_BODY_BYTES);
    if (body === null) throw new LogError(`${new URL(url).pathname}: an answer over ${MAX_BODY_BYTES} bytes`);
    return body;
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
