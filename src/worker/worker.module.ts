import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { CtFollowerModule } from '../ct/ct.module.js';
import { ImportModule } from '../import/import.module.js';
import { ScansModule } from '../scans/scans.module.js';
import { WebhookDeliveryModule } from '../webhooks/webhooks.module.js';
import { ScopeSyncService } from './scope-sync.service.js';
import { ScanClaimsRepository } from './scan-claims.repository.js';
import { WorkerService } from './worker.service.js';

/** The scan worker and the CT follower: imported only by processes that run it (WORKER=on); owns the one ScheduleModule. */
@Module({
  imports: [ScheduleModule.forRoot(), ScansModule, ImportModule, WebhookDeliveryModule, CtFollowerModule],
  providers: [ScanClaimsRepository, WorkerService, ScopeSyncService],
  exports: [WorkerService, ScopeSyncService, WebhookDeliveryModule],
})
export class WorkerModule {}
