import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PlatformEntity } from './entities/platform.entity.js';
import { PlatformsController } from './platforms.controller.js';
import { PlatformsRepository } from './platforms.repository.js';
import { PlatformsService } from './platforms.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([PlatformEntity])],
  controllers: [PlatformsController],
  providers: [PlatformsRepository, PlatformsService],
  exports: [PlatformsRepository, PlatformsService],
})
export class PlatformsModule {}
