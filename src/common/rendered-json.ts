/**
 * A success body whose JSON PostgreSQL wrote (see jsonPage): Node sends its text as it is, never decoding the
 * rows or serialising them. Fastify's reply serializer (serializeReply) knows it from any other payload.
 */
export class RenderedJson {
  private constructor(readonly text: string) {}

  /** The contract's envelope around rendered `data` alone. */
  static data(data: string): RenderedJson {
    return new RenderedJson(`{"data":${data}}`);
  }

  /** The contract's envelope around a rendered `data` array and a small `meta` object. */
  static envelope(data: string, meta: object): RenderedJson {
    return new RenderedJson(`{"data":${data},"meta":${JSON.stringify(meta)}}`);
  }
}

/** Fastify's reply serializer: rendered bodies as they are, everything else through JSON.stringify. */
export function serializeReply(payload: unknown): string {
  return payload instanceof RenderedJson ? payload.text : JSON.stringify(payload);
}
