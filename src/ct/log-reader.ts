/**
 * How the follower reads a log, whatever its API: its tree size, and its entries a page at a time, each as the
 * bytes of its RFC 6962 TimestampedEntry (see entryNames). An entry that cannot be one is an empty array: the
 * follower skips it rather than stick on it.
 */
export interface CtLogReader {
  treeSize(): Promise<number>;
  /** Where a page that starts at `from` ends (exclusive), at most `to`. */
  pageEnd(from: number, to: number): number;
  /** Entries [from, to), a page as pageEnd cut it, whole and in order. */
  read(from: number, to: number): Promise<Uint8Array[]>;
}
