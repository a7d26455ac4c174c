import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { ExportController } from './export.controller.js';
import { ExportRepository } from './export.repository.js';
import { ExportSlots } from './export-slots.js';
import { ExportService } from './export.service.js';

@Module({
  imports: [DomainsModule],
  controllers: [ExportController],
  providers: [ExportRepository, ExportService, ExportSlots],
})
export class ExportModule {}
