import { Injectable } from '@nestjs/common';

/**
 * The process's stop, as main begins it on SIGTERM: from then on, work that takes up new jobs takes no more
 * (`signal`), and work already running may finish until the deadline, SHUTDOWN_TIMEOUT after the signal. An
 * app closed without it (tests) gives each piece the whole timeout from the moment it closes.
 */
@Injectable()
export class Shutdown {
  private readonly started = new AbortController();
  private deadline: number | null = null;

  /** Aborted when the process begins to stop. */
  get signal(): AbortSignal {
    return this.started.signal;
  }

  begin(timeoutMs: number): void {
    if (this.deadline !== null) return;
    this.deadline = Date.now() + timeoutMs;
    this.started.abort();
  }

  /** Milliseconds left until the deadline; `timeoutMs` when the stop did not begin through begin(). */
  remainingMs(timeoutMs: number): number {
    return this.deadline === null ? timeoutMs : Math.max(0, this.deadline - Date.now());
  }
}
