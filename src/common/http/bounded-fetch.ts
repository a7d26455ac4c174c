/** Why an outbound fetch gave up. The message never quotes the body, nor the URL a redirect pointed to. */
export class FetchError extends Error {}

export interface BoundedFetchOptions {
  /** The largest body read, in MiB (FETCH_MAX_MB): counted as it arrives, whatever Content-Length says. */
  maxMiB: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Redirects followed before giving up; a scope list or crt.sh answer is at most a move or two away. */
export const MAX_REDIRECTS = 3;

/**
 * GETs an http(s) URL and returns its body as text, following at most MAX_REDIRECTS redirects, and those only
 * to http(s). Redirects are followed by hand: fetch's own following allows 20 hops and does not let us say why
 * it stopped. The size is bounded by the bytes read, after any decompression: Content-Length may be absent
 * (chunked, or read until close) or count the compressed bytes of a body that inflates far beyond it.
 */
export async function fetchBounded(url: string, options: BoundedFetchOptions): Promise<string> {
  let target = new URL(url);
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(target, { headers: options.headers, signal: options.signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      if (redirects === MAX_REDIRECTS) throw new FetchError(`more than ${MAX_REDIRECTS} redirects`);
      target = redirectTarget(location, target);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new FetchError(`HTTP ${response.status}`);
    }
    return readBounded(response, options.maxMiB);
  }
}

function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new FetchError('redirected to an invalid URL');
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    throw new FetchError(`redirected to a ${next.protocol} URL; only http and https redirects are followed`);
  return next;
}

async function readBounded(response: Response, maxMiB: number): Promise<string> {
  const limit = maxMiB * 2 ** 20;
  const tooLarge = () => new FetchError(`the body is larger than ${maxMiB} MiB (FETCH_MAX_MB)`);
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop by throwing cancels the stream, which closes the connection.
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
