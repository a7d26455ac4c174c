import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PlatformEntity } from './platform.entity.js';
import { PlatformsRepository } from './platforms.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([PlatformEntity])],
  providers: [PlatformsRepository],
  exports: [PlatformsRepository],
})
export class PlatformsModule {}
