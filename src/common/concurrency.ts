/** Maps items with at most `limit` calls in flight, keeping input order in the results. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  });
  await Promise.all(workers);
  return results;
}

/** Retries fn with exponential back-off (0.5 s, 1 s, 2 s …) until it succeeds or attempts run out. */
export async function withRetry<T>(
  attempts: number,
  signal: AbortSignal,
  fn: (attempt: number) => Promise<T>,
): Promise<T> {
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (signal.aborted) break;
    try {
      return await fn(attempt);
    } catch (e) {
      last = e;
      if (attempt < attempts) await sleep(500 * 2 ** (attempt - 1), signal);
    }
  }
  throw last instanceof Error ? last : new Error(last === undefined ? 'aborted' : 'failed');
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
