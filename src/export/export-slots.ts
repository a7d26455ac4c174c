import { Injectable } from '@nestjs/common';
import { Environment } from '../config/environment.js';
import { AppError } from '../common/errors/app-error.js';

/**
 * How many exports this process runs at once. Each export's batches take a pool connection one statement at a
 * time, so fewer exports than connections leave the key checks and the small reads a connection whatever the
 * exports do: on a server at most DATABASE_POOL_SIZE − 2 of them; on the embedded database (one connection) two,
 * whose batches take turns with every other request. A further export waits up to EXPORT_WAIT_SECONDS for a slot,
 * then is answered 503 with Retry-After. This bounds concurrency, never rate.
 */
@Injectable()
export class ExportSlots {
  readonly capacity: number;
  private inUse = 0;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly env: Environment) {
    const below = env.DATABASE_URL ? Math.max(1, env.DATABASE_POOL_SIZE - 2) : 2;
    this.capacity = Math.min(env.EXPORT_MAX_CONCURRENT, below);
  }

  /** Takes a slot; resolves to the function that gives it back (once, whatever calls it again). */
  async acquire(): Promise<() => void> {
    // A slot given back while others wait passes straight to the longest waiting, never to a newcomer.
    if (this.inUse < this.capacity) this.inUse += 1;
    else await this.wait(this.env.EXPORT_WAIT_SECONDS * 1000);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.values().next();
      if (next.done) this.inUse -= 1;
      else next.value();
    };
  }

  get running(): number {
    return this.inUse;
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.delete(wake);
        reject(
          new AppError(
            'service_unavailable',
            `This process runs as many exports as it may (${this.capacity}); retry shortly`,
            { retryAfterSeconds: Math.max(1, this.env.EXPORT_WAIT_SECONDS) },
          ),
        );
      }, ms);
      this.waiting.add(wake);
    });
  }
}
