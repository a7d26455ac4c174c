/**
 * A success body whose JSON PostgreSQL wrote (see jsonPage): Node sends it as it is, never decoding the rows or
 * serialising them. Fastify's reply serializer (serializeReply) knows it from any other payload.
 *
 * A large page arrives as bytes (pageOfLines) and stays bytes: V8 makes a large object of every string of more
 * than about 128 KB, and each one the envelope built (joined to the page, flattened again for the ETag's digest)
 * cost about 1 ms of the service's CPU. A smaller page stays text: a Buffer of its size cost more than the strings
 * (see docs/benchmarks-log.md, "Large pages in bytes").
 */
export class RenderedJson {
  private constructor(readonly body: string | Buffer) {}

  /** The contract's envelope around rendered `data` alone. */
  static data(data: string | Buffer): RenderedJson {
    return new RenderedJson(joined('{"data":', data, '}'));
  }

  /** The contract's envelope around a rendered `data` array and a small `meta` object. */
  static envelope(data: string | Buffer, meta: object): RenderedJson {
    return new RenderedJson(joined('{"data":', data, `,"meta":${JSON.stringify(meta)}}`));
  }

  /** The body as text (for a page that shows what the API answers). */
  get text(): string {
    return typeof this.body === 'string' ? this.body : this.body.toString('utf8');
  }
}

const joined = (open: string, data: string | Buffer, close: string): string | Buffer =>
  typeof data === 'string' ? `${open}${data}${close}` : Buffer.concat([Buffer.from(open), data, Buffer.from(close)]);

/** Fastify's reply serializer: rendered bodies as they are, everything else through JSON.stringify. */
export function serializeReply(payload: unknown): string | Buffer {
  return payload instanceof RenderedJson ? payload.body : JSON.stringify(payload);
}
