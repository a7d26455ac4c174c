import { EntryError, tileEntries } from './ct-entry.js';
import { LogError, logGet } from './ct-http.js';
import type { CtLogReader } from './log-reader.js';

/** Entries per full data tile (c2sp.org/static-ct-api: tiles are 256 wide). */
export const TILE_WIDTH = 256;

/**
 * A static-ct-api log (c2sp.org/static-ct-api), read at its monitoring prefix: the tree size from `checkpoint`
 * (a signed note: origin line, then the size in decimal, then the root hash), the entries from the data tiles
 * `tile/data/<N>`, and at the tail from the partial tile `tile/data/<N>.p/<W>`. A partial tile already replaced
 * by its full tile (logs may drop them) is read from the full one. A page is one tile.
 */
export class StaticCtClient implements CtLogReader {
  private readonly prefix: string;

  constructor(
    url: string,
    private readonly signal: AbortSignal,
  ) {
    this.prefix = url.replace(/\/+$/, '');
  }

  async treeSize(): Promise<number> {
    const body = (await logGet(`${this.prefix}/checkpoint`, this.signal, 'text/plain'))!;
    const size = body.toString('utf8').split('\n')[1] ?? '';
    if (!/^(0|[1-9]\d{0,15})$/.test(size) || !Number.isSafeInteger(Number(size)))
      throw new LogError('checkpoint: no valid tree size on its second line');
    return Number(size);
  }

  pageEnd(from: number, to: number): number {
    return Math.min((Math.floor(from / TILE_WIDTH) + 1) * TILE_WIDTH, to);
  }

  /** Entries [from, to) of one tile: the full tile when `to` reaches its end, else the partial tile up to `to`. */
  async read(from: number, to: number): Promise<Uint8Array[]> {
    const index = Math.floor(from / TILE_WIDTH);
    const first = index * TILE_WIDTH;
    if (to <= from || to > first + TILE_WIDTH) throw new RangeError(`entries [${from}, ${to}) are not in one tile`);
    const width = to - first;
    const path = `${this.prefix}/tile/data/${tilePath(index)}`;
    let tile: Buffer | null = null;
    if (width < TILE_WIDTH) tile = await logGet(`${path}.p/${width}`, this.signal, 'application/octet-stream', true);
    tile ??= await logGet(path, this.signal, 'application/octet-stream');
    let entries: Uint8Array[];
    try {
      entries = tileEntries(tile!);
    } catch (e) {
      if (e instanceof EntryError) throw new LogError(`data tile ${index}: ${e.message}`);
      throw e;
    }
    if (entries.length < width) throw new LogError(`data tile ${index} has ${entries.length} entries, not ${width}`);
    return entries.slice(from - first, width);
  }
}

/** A tile index as path elements of three digits, all but the last prefixed with x: 1234067 → x001/x234/067. */
export function tilePath(index: number): string {
  let path = String(index % 1000).padStart(3, '0');
  for (let rest = Math.floor(index / 1000); rest > 0; rest = Math.floor(rest / 1000))
    path = `x${String(rest % 1000).padStart(3, '0')}/${path}`;
  return path;
}
