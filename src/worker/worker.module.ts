import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { ScansModule } from '../scans/scans.module.js';
import { ScanClaimsRepository } from './scan-claims.repository.js';
import { WorkerService } from './worker.service.js';

/** The scan worker: imported only by processes that run it (WORKER=on); owns the one ScheduleModule. */
@Module({
  imports: [ScheduleModule.forRoot(), ScansModule],
  providers: [ScanClaimsRepository, WorkerService],
  exports: [WorkerService],
})
export class WorkerModule {}
