import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DomainsModule } from '../domains/domains.module.js';
import { EventsModule } from '../events/events.module.js';
import { PlatformsModule } from '../platforms/platforms.module.js';
import { HostEntity } from './entities/host.entity.js';
import {
  DomainHostsController,
  HostController,
  PlatformHostsController,
  SubdomainsController,
} from './hosts.controller.js';
import { HostsRepository } from './hosts.repository.js';
import { HostsService } from './hosts.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([HostEntity]), DomainsModule, PlatformsModule, EventsModule],
  controllers: [DomainHostsController, SubdomainsController, PlatformHostsController, HostController],
  providers: [HostsRepository, HostsService],
  exports: [HostsRepository, HostsService],
})
export class HostsModule {}
