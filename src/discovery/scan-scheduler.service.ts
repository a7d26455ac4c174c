import { hostname } from 'node:os';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import { newWorkerId, workerAlive } from '../common/worker-id.js';
import { Environment } from '../config/environment.js';
import { Metrics } from '../metrics/metrics.js';
import { ScanRunner, type SliceOutcome } from './scan-runner.service.js';
import { ScanClaimsRepository } from './scan-claims.repository.js';

export interface TickReport {
  skipped: boolean;
  outcomes: SliceOutcome[];
}

const JOB = 'scan-worker';

/**
 * The scheduled worker: on each tick it takes up to SCAN_CONCURRENCY scans — running ones waiting for their
 * next slice first, then event scans (permutations seeded by hosts the CT follower found, at most half the free
 * slots), then queued and due domains, then event scans again in the slots left — and runs one slice of each. Ticks never overlap in a
 * process; processes coordinate only through the database.
 */
@Injectable()
export class ScanScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly workerId = newWorkerId();
  private readonly logger = new Logger('Worker');
  private readonly stopping = new AbortController();
  private current: Promise<TickReport> | null = null;
  /** Scans whose slice the database cut short, to give back once it answers again (see giveBackInterrupted). */
  private readonly interrupted = new Set<string>();

  constructor(
    private readonly env: Environment,
    private readonly claims: ScanClaimsRepository,
    private readonly runner: ScanRunner,
    private readonly scheduler: SchedulerRegistry,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.recoverOrphans().catch((e: Error) =>
      this.logger.warn(`could not check for interrupted scans: ${e.message}`),
    );
    const job = CronJob.from({
      cronTime: this.env.WORKER_CRON,
      onTick: () => void this.tick(),
      start: true,
      waitForCompletion: true,
    });
    this.scheduler.addCronJob(JOB, job);
    this.logger.log(`worker ${this.workerId} scheduled on "${this.env.WORKER_CRON}"`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('cron', JOB)) await this.scheduler.getCronJob(JOB).stop();
    // Running slices see the signal, persist where they stopped and give their scans back.
    this.stopping.abort();
    await this.current;
  }

  /** One tick; a tick that finds the previous one still running does nothing. */
  tick(): Promise<TickReport> {
    if (this.current) return Promise.resolve({ skipped: true, outcomes: [] });
    this.current = this.runTick().finally(() => (this.current = null));
    return this.current;
  }

  private async runTick(): Promise<TickReport> {
    const started = Date.now();
    const deadline = started + this.env.SCAN_SLICE_SECONDS * 1000;
    const { SCAN_CONCURRENCY: capacity, SCAN_LEASE_SECONDS: lease, SCAN_INTERVAL_HOURS: interval } = this.env;
    let claimed;
    try {
      await this.giveBackInterrupted();
      await this.claims.failExhausted();
      const resumed = await this.claims.claimRunning(this.workerId, capacity, lease);
      // Event scans are small and about being first, but take at most half the free slots (none of a single
      // one) before the queued and due scans, and then what these left.
      const free = capacity - resumed.length;
      const permute = this.env.SCAN_SOURCES.includes('permute');
      const gather = this.env.PERMUTE_EVENT_SECONDS;
      const events = permute ? await this.claims.startEvents(this.workerId, Math.floor(free / 2), lease, gather) : [];
      const fresh = await this.claims.startDue(this.workerId, free - events.length, lease, interval);
      const left = free - events.length - fresh.length;
      const more = permute && left > 0 ? await this.claims.startEvents(this.workerId, left, lease, gather) : [];
      claimed = [...resumed, ...events, ...fresh, ...more];
    } catch (e) {
      this.logger.warn(`tick skipped, the database is not answering: ${(e as Error).message}`);
      return { skipped: true, outcomes: [] };
    }
    if (claimed.length === 0) return { skipped: false, outcomes: [] };
    for (const scan of claimed)
      this.logger.log(
        `scan ${scan.id} of ${scan.domain} (${scan.trigger}) ${scan.progress.phase ? 'resumed' : 'started'}`,
      );

    const ids = claimed.map((s) => s.id);
    const heartbeat = setInterval(
      () => void this.claims.heartbeat(this.workerId, ids, lease).catch(() => undefined),
      Math.max(1000, (lease * 1000) / 3),
    );
    try {
      const outcomes = await Promise.all(
        claimed.map(async (scan): Promise<SliceOutcome> => {
          try {
            const outcome = await this.runner.runSlice(scan, this.stopping.signal, deadline);
            if (outcome.status === 'parked') {
              await this.claims.park(scan.id, this.workerId);
              if (this.stopping.signal.aborted)
                this.logger.log(`scan ${scan.id} of ${scan.domain} checkpointed at shutdown; any worker resumes it`);
            }
            return outcome;
          } catch (e) {
            // The database failed mid-slice: the first tick that reaches it again gives the scan back and takes it up.
            this.logger.error(`scan ${scan.id} of ${scan.domain} interrupted: ${(e as Error).message}`);
            this.interrupted.add(scan.id);
            return { status: 'error', error: (e as Error).message };
          }
        }),
      );
      this.metrics.tickDuration.observe((Date.now() - started) / 1000);
      return { skipped: false, outcomes };
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Scans whose slice the database cut short are still this worker's, with a lease that would keep them from every
   * worker for up to SCAN_LEASE_SECONDS after the database is back. The first tick that reaches it gives them back,
   * and takes them up in the same tick.
   */
  private async giveBackInterrupted(): Promise<void> {
    if (this.interrupted.size === 0) return;
    const ids = [...this.interrupted];
    await this.claims.parkAll(ids, this.workerId);
    for (const id of ids) this.interrupted.delete(id);
    this.logger.log(`${ids.length} scan(s) interrupted by the database are given back and go on now`);
  }

  /** Scans whose worker on this host died are freed at start, so they go on at the first tick. */
  private async recoverOrphans(): Promise<void> {
    const held = await this.claims.heldOnHost(hostname());
    const dead = held.filter((s) => !workerAlive(s.workerId));
    if (dead.length > 0) {
      await this.claims.release(dead.map((s) => s.id));
      this.logger.warn(`${dead.length} scan(s) interrupted by a stopped process will go on at the next tick`);
    }
  }
}
