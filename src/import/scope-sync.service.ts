import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { CronJob } from 'cron';
import type { DataSource } from 'typeorm';
import { Environment } from '../config/environment.js';
import { ImportService, type ImportSummary } from './import.service.js';
import type { ImportFormat } from './scope-formats.js';

const JOB = 'scope-sync';
// Held for a sync's duration so that of several workers only one syncs at a time; any constant works.
const SYNC_LOCK = 7_304_113_213;

export interface SyncOutcome {
  source: string;
  summary?: ImportSummary;
  error?: string;
}

/** Imports SYNC_SOURCES on SYNC_CRON with the rules of `domains import` (scheduled program sync). */
@Injectable()
export class ScopeSyncService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Sync');

  constructor(
    private readonly env: Environment,
    private readonly imports: ImportService,
    private readonly scheduler: SchedulerRegistry,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.env.SYNC_SOURCES?.length) return;
    const job = CronJob.from({
      cronTime: this.env.SYNC_CRON,
      onTick: () => void this.sync(),
      start: true,
      waitForCompletion: true,
    });
    this.scheduler.addCronJob(JOB, job);
    this.logger.log(`syncing ${this.env.SYNC_SOURCES.length} scope list(s) on "${this.env.SYNC_CRON}"`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.scheduler.doesExist('cron', JOB)) await this.scheduler.getCronJob(JOB).stop();
  }

  /** One sync of every source; a source that fails is logged and the others go on. Null when another worker syncs. */
  async sync(): Promise<SyncOutcome[] | null> {
    // The lock holds a connection for the sync's duration; with a one-connection pool (the embedded database,
    // one process) the import would wait for that connection forever, and there is no other worker anyway.
    if ((this.db.options as { poolSize?: number }).poolSize === 1) return this.syncAll();
    const runner = this.db.createQueryRunner();
    try {
      const [lock] = (await runner.query(`SELECT pg_try_advisory_lock($1) AS got`, [SYNC_LOCK])) as { got: boolean }[];
      if (!lock.got) return null;
      try {
        return await this.syncAll();
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1)`, [SYNC_LOCK]);
      }
    } catch (e) {
      this.logger.warn(`scope sync skipped: ${(e as Error).message}`);
      return null;
    } finally {
      await runner.release();
    }
  }

  private async syncAll(): Promise<SyncOutcome[]> {
    const outcomes: SyncOutcome[] = [];
    for (const entry of this.env.SYNC_SOURCES ?? []) outcomes.push(await this.syncOne(entry));
    return outcomes;
  }

  private async syncOne(entry: string): Promise<SyncOutcome> {
    const colon = entry.indexOf(':');
    const format = entry.slice(0, colon) as ImportFormat;
    const source = entry.slice(colon + 1);
    try {
      const summary = await this.imports.run(source, { format, prune: this.env.SYNC_PRUNE === 'on', dryRun: false });
      this.logger.log(
        `synced ${source}: added ${summary.added.length}, kept ${summary.kept}, disabled ${summary.disabled.length}`,
      );
      return { source, summary };
    } catch (e) {
      this.logger.warn(`sync of ${source} failed: ${(e as Error).message}`);
      return { source, error: (e as Error).message };
    }
  }
}
