import { readFile, stat } from 'node:fs/promises';

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

/**
 * Reads a source named by its user: an http(s) URL through fetchBounded, else a file path, both bounded by
 * `maxMiB`. The FetchError says which source and why, never what it held.
 */
export async function readPathOrUrl(source: string, options: BoundedFetchOptions): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    return fetchBounded(source, options).catch((e: Error) => {
      throw new FetchError(`cannot fetch ${source}: ${e.message}`);
    });
  }
  try {
    if ((await stat(source)).size > options.maxMiB * 2 ** 20)
      throw new FetchError(`cannot read ${source}: larger than ${options.maxMiB} MiB (FETCH_MAX_MB)`);
    return await readFile(source, 'utf8');
  } catch (e) {
    if (e instanceof FetchError) throw e;
    throw new FetchError(`cannot read ${source}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
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
  const body = await readBodyBounded(response, maxMiB * 2 ** 20);
  if (body === null) throw new FetchError(`the body is larger than ${maxMiB} MiB (FETCH_MAX_MB)`);
  return body.toString('utf8');
}

/**
 * A response's body, or null when it is over `limit` bytes: by Content-Length when it says so, else counted as
 * it arrives, after any decompression. Either way the rest is never read.
 */
export async function readBodyBounded(response: Response, limit: number): Promise<Buffer | null> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel();
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the stream, which closes the connection.
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
