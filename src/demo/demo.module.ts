import { Module } from '@nestjs/common';
import { DemoDataRepository } from './demo-data.repository.js';
import { DemoDataService } from './demo-data.service.js';

/** Synthetic data for demos, tests and benchmarks. */
@Module({ providers: [DemoDataRepository, DemoDataService], exports: [DemoDataService] })
export class DemoModule {}
