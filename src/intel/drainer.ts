/**
 * A process-local queue's loop: one drain at a time, started when work arrives and ending when none is left.
 * idle() waits for it (tests, a clean stop); stop() lets the current round end and starts no other.
 */
export abstract class Drainer {
  protected stopped = false;
  private running: Promise<void> | null = null;

  /** Resolves when nothing is left to do. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  protected kick(): void {
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  protected async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  protected abstract drain(): Promise<void>;
}
