/**
 * Bytes between an export's batches and its client: the batch side puts chunks in as fast as PostgreSQL writes
 * them (so a batch's connection never waits for the client), the client side takes them at its own pace. The
 * batch side asks for `room()` before each batch, which waits while more than `lowWater` bytes are still queued:
 * memory stays within about one batch beyond that, whatever the client does. `push` tells when more than
 * `highWater` bytes wait, for a batch far larger than expected to pause until `room()`.
 */
export class ChunkQueue {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private closedByTaker = false;
  private wakeTaker: (() => void) | undefined;
  private wakeFiller: (() => void) | undefined;
  /** Called once if the taker closes the queue: stops what fills it (the batch running now). */
  onClose: (() => void) | undefined;

  constructor(
    private readonly lowWater: number,
    private readonly highWater = 4 * lowWater,
  ) {}

  get closed(): boolean {
    return this.closedByTaker;
  }

  /** Queues a chunk; false when more than highWater bytes now wait. */
  push(chunk: Buffer): boolean {
    if (this.closedByTaker || chunk.length === 0) return true;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.wakeTaker?.();
    return this.bytes <= this.highWater;
  }

  end(): void {
    this.ended = true;
    this.wakeTaker?.();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.wakeTaker?.();
  }

  /** The next chunk; null at the end; throws what failed the batches (after the chunks before it). */
  async take(): Promise<Buffer | null> {
    while (this.chunks.length === 0) {
      if (this.failure) throw this.failure.error;
      if (this.ended || this.closedByTaker) return null;
      await new Promise<void>((resolve) => (this.wakeTaker = resolve));
      this.wakeTaker = undefined;
    }
    const chunk = this.chunks.shift()!;
    this.bytes -= chunk.length;
    if (this.bytes <= this.lowWater) this.wakeFiller?.();
    return chunk;
  }

  /** Resolves once a batch may start: few enough bytes are queued, or the taker has gone. */
  async room(): Promise<void> {
    while (this.bytes > this.lowWater && !this.closedByTaker) {
      await new Promise<void>((resolve) => (this.wakeFiller = resolve));
      this.wakeFiller = undefined;
    }
  }

  /** The taker is done (the client went away, or the export ended): drops what is queued and stops the batch. */
  close(): void {
    if (this.closedByTaker) return;
    this.closedByTaker = true;
    this.chunks.length = 0;
    this.bytes = 0;
    this.wakeFiller?.();
    this.onClose?.();
  }
}
