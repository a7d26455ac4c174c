/** PGCOPY\n\377\r\n\0: the first bytes of every COPY … (FORMAT binary) output. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** The signature, the flags field and the header extension's length. */
const HEADER = SIGNATURE.length + 8;
/** A row's field count (2), the key's length (4) and value (int4), and the line's length. */
const ROW_HEAD = 2 + 4 + 4 + 4;

/** Where a batch's last row was: its key (the first column) and its line. */
export interface LastRow {
  key: number;
  line: Buffer;
}

/**
 * The bytes of an export out of the rows of `COPY (SELECT <int4 key>, <text line> …) TO STDOUT (FORMAT binary)`:
 * each line as PostgreSQL wrote it, then `end`, and `between` before every line but the first of the export.
 * Binary COPY escapes nothing, where the text format would turn a title's backslash, tab or line break into an
 * escape; each value comes with its length, so the line is copied without being decoded. The key is read for the
 * last row only, which with its line tells where the next batch resumes. One decoder serves an export's batches
 * in turn (`begin` before each); chunks may cut a row anywhere.
 */
export class CopyLines {
  /** Rows of the current batch, and the bytes it gave. */
  rows = 0;
  bytes = 0;
  private emitted = false;
  private header = false;
  private done = false;
  private rest: Buffer | undefined;
  private last: LastRow | undefined;

  constructor(
    private readonly end: Buffer,
    private readonly between: Buffer = Buffer.alloc(0),
  ) {}

  begin(): void {
    this.rows = 0;
    this.bytes = 0;
    this.header = false;
    this.done = false;
    this.rest = undefined;
    this.last = undefined;
  }

  /** The export's bytes of the whole rows so far (empty until a row is whole). */
  push(chunk: Buffer): Buffer {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = undefined;
    let p = 0;
    if (!this.header) {
      if (buf.length < HEADER) return this.keep(buf, 0);
      if (!buf.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('export: not a binary COPY');
      const extension = buf.readUInt32BE(HEADER - 4);
      if (buf.length < HEADER + extension) return this.keep(buf, 0);
      p = HEADER + extension;
      this.header = true;
    }
    // Each row takes at least ROW_HEAD bytes more than its line, and adds at most end and between: no more out than in.
    // Byte by byte, with locals: the loop runs once a host, and a copy call per line cost more than the copying.
    const out = Buffer.allocUnsafe(buf.length - p);
    const { end, between } = this;
    const size = buf.length;
    let emitted = this.emitted;
    let rows = 0;
    let o = 0;
    let lastRow = -1;
    let lastStart = 0;
    let lastEnd = 0;
    while (!this.done && p + 2 <= size) {
      if (buf[p] === 0xff && buf[p + 1] === 0xff) {
        this.done = true; // the trailer
        p += 2;
        break;
      }
      if (p + ROW_HEAD > size) break;
      if (
        buf[p] !== 0 ||
        buf[p + 1] !== 2 ||
        buf[p + 2] !== 0 ||
        buf[p + 3] !== 0 ||
        buf[p + 4] !== 0 ||
        buf[p + 5] !== 4
      ) {
        throw new Error('export: a COPY row is not (int4, text)');
      }
      // The line's length; -1 (NULL) for none, which no line is.
      const length = (buf[p + 10] << 24) | (buf[p + 11] << 16) | (buf[p + 12] << 8) | buf[p + 13];
      const start = p + ROW_HEAD;
      const stop = length > 0 ? start + length : start;
      if (stop > size) break;
      if (emitted) for (let i = 0; i < between.length; i++) out[o++] = between[i];
      emitted = true;
      lastRow = p;
      lastStart = o;
      if (length < 256) for (let i = start; i < stop; i++) out[o++] = buf[i];
      else o += buf.copy(out, o, start, stop);
      lastEnd = o;
      for (let i = 0; i < end.length; i++) out[o++] = end[i];
      rows++;
      p = stop;
    }
    if (lastRow >= 0) {
      this.last = { key: buf.readInt32BE(lastRow + 6), line: Buffer.from(out.subarray(lastStart, lastEnd)) };
    }
    this.emitted = emitted;
    this.rows += rows;
    this.bytes += o;
    this.keep(buf, p);
    return out.subarray(0, o);
  }

  /** The batch's last row, once its COPY has ended; undefined when it had none. Throws if the output was cut. */
  finish(): LastRow | undefined {
    if (!this.done || this.rest) throw new Error('export: a COPY ended before its trailer');
    return this.last;
  }

  private keep(buf: Buffer, from: number): Buffer {
    if (from < buf.length) this.rest = Buffer.from(buf.subarray(from));
    return Buffer.alloc(0);
  }
}
