import { Module } from '@nestjs/common';
import { PlatformsModule } from '../platforms/platforms.module.js';
import { StatsController } from './stats.controller.js';
import { StatsRepository } from './stats.repository.js';
import { StatsService } from './stats.service.js';

@Module({
  imports: [PlatformsModule],
  controllers: [StatsController],
  providers: [StatsRepository, StatsService],
  exports: [StatsService],
})
export class StatsModule {}
