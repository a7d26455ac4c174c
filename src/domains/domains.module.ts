import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PlatformsModule } from '../platforms/platforms.module.js';
import { DomainEntity } from './entities/domain.entity.js';
import { DomainsController } from './domains.controller.js';
import { DomainsRepository } from './domains.repository.js';
import { DomainsService } from './domains.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([DomainEntity]), PlatformsModule],
  controllers: [DomainsController],
  providers: [DomainsRepository, DomainsService],
  exports: [DomainsRepository, DomainsService],
})
export class DomainsModule {}
