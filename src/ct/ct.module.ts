import { Module } from '@nestjs/common';
import { IntelModule } from '../intel/intel.module.js';
import { CtController } from './ct.controller.js';
import { CtFollower } from './ct-follower.service.js';
import { CtLogsRepository } from './ct-logs.repository.js';
import { CtService } from './ct.service.js';

/** Where the followed CT logs stand: GET /ct/logs and `cli ct status`. */
@Module({
  controllers: [CtController],
  providers: [CtLogsRepository, CtService],
  exports: [CtService],
})
export class CtModule {}

/** The follower itself: imported by processes that run the worker (WORKER=on). */
@Module({
  imports: [IntelModule],
  providers: [CtLogsRepository, CtFollower],
})
export class CtFollowerModule {}
