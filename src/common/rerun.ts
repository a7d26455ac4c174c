/**
 * Work that never runs twice at once: `run()` starts it, and a call while it runs makes it run once more when it
 * is done (whatever prompted the call may have come too late for the current pass).
 */
export class Rerun {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly work: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.work();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Resolves when no run is in progress, or asked for. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}
