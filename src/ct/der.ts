/**
 * Just enough of a DER reader (ITU-T X.690) to walk a certificate: tag, length and where the contents lie.
 * Only definite lengths exist in DER; anything else is an error, never a guess.
 */
export interface Tlv {
  tag: number;
  /** Offset of the contents in the buffer. */
  start: number;
  /** Offset just past the contents. */
  end: number;
}

export class DerError extends Error {}

/** The element that begins at `at`, which must end by `limit`. */
export function readTlv(buf: Uint8Array, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new DerError('truncated element');
  const tag = buf[at];
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tags are not used in certificates');
  let length = buf[at + 1];
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4) throw new DerError('unsupported length');
    if (start + bytes > limit) throw new DerError('truncated length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + buf[start + i];
    start += bytes;
  }
  const end = start + length;
  if (end > limit) throw new DerError('element runs past its container');
  return { tag, start, end };
}

/** The elements inside a constructed element, in order. */
export function* children(buf: Uint8Array, parent: Tlv): Generator<Tlv> {
  for (let at = parent.start; at < parent.end;) {
    const child = readTlv(buf, at, parent.end);
    yield child;
    at = child.end;
  }
}

/** Whether the element's contents are exactly `bytes` (an OID compared by its encoding). */
export function contentsEqual(buf: Uint8Array, tlv: Tlv, bytes: Uint8Array): boolean {
  if (tlv.end - tlv.start !== bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[tlv.start + i] !== bytes[i]) return false;
  return true;
}
