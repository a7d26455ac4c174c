import { LogError, logGet } from './ct-http.js';
import type { CtLogReader } from './log-reader.js';

/** Entries asked for per get-entries request; a log that gives fewer is asked again from where it stopped. */
const PAGE = 256;
const NOT_AN_ENTRY = new Uint8Array(0);

/** An RFC 6962 §4 log, read through get-sth (§4.3) and get-entries (§4.6) at its base URL. */
export class Rfc6962Client implements CtLogReader {
  private readonly base: string;

  constructor(
    url: string,
    private readonly signal: AbortSignal,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  async treeSize(): Promise<number> {
    const body = await this.getJson(`${this.base}/ct/v1/get-sth`);
    const size = (body as { tree_size?: unknown }).tree_size;
    if (!Number.isSafeInteger(size) || (size as number) < 0) throw new LogError('get-sth: no valid tree_size');
    return size as number;
  }

  pageEnd(from: number, to: number): number {
    return Math.min(from + PAGE, to);
  }

  /** Entries [from, to), asking again from where a short answer stopped. */
  async read(from: number, to: number): Promise<Uint8Array[]> {
    const entries: Uint8Array[] = [];
    while (from + entries.length < to) {
      const got = await this.getEntries(from + entries.length, to - 1);
      if (got.length === 0) throw new LogError(`get-entries gave no entry at ${from + entries.length}`);
      // A MerkleTreeLeaf (§3.4) is version 0, leaf type 0 (timestamped_entry), then the TimestampedEntry.
      entries.push(...got.map((leaf) => (leaf[0] === 0 && leaf[1] === 0 ? leaf.subarray(2) : NOT_AN_ENTRY)));
    }
    return entries;
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
    const body = (await logGet(url, this.signal, 'application/json'))!;
    try {
      return JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      throw new LogError(`${new URL(url).pathname}: the answer is not JSON`);
    }
  }
}
