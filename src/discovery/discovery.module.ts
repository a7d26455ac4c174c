import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DomainsModule } from '../domains/domains.module.js';
import { IntelModule } from '../intel/intel.module.js';
import { ScanEntity } from './entities/scan.entity.js';
import { ScansController } from './scans.controller.js';
import { ScanRunner } from './scan-runner.service.js';
import { ScanStoreRepository } from './scan-store.repository.js';
import { PermuteRepository } from './permute/permute.repository.js';
import { ScansRepository } from './scans.repository.js';
import { ScansService } from './scans.service.js';
import { SourceHealthRepository } from './source-health.repository.js';
import { SourceHealthService } from './source-health.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([ScanEntity]), DomainsModule, IntelModule],
  controllers: [ScansController],
  providers: [
    ScansRepository,
    ScansService,
    ScanStoreRepository,
    PermuteRepository,
    ScanRunner,
    SourceHealthRepository,
    SourceHealthService,
  ],
  exports: [ScansRepository, ScansService, ScanRunner, SourceHealthService],
})
export class DiscoveryModule {}
