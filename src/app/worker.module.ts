import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { CtFollowerModule } from '../ct/ct.module.js';
import { ImportModule } from '../import/import.module.js';
import { DiscoveryModule } from '../discovery/discovery.module.js';
import { WebhookDeliveryModule } from '../notify/notify.module.js';
import { ScopeSyncService } from '../import/scope-sync.service.js';
import { ScanClaimsRepository } from '../discovery/scan-claims.repository.js';
import { ScanScheduler } from '../discovery/scan-scheduler.service.js';

/** The scan worker and the CT follower: imported only by processes that run it (WORKER=on); owns the one ScheduleModule. */
@Module({
  imports: [ScheduleModule.forRoot(), DiscoveryModule, ImportModule, WebhookDeliveryModule, CtFollowerModule],
  providers: [ScanClaimsRepository, ScanScheduler, ScopeSyncService],
  exports: [ScanScheduler, ScopeSyncService, WebhookDeliveryModule],
})
export class WorkerModule {}
