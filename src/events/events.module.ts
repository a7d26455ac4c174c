import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { StreamModule } from '../stream/stream.module.js';
import { EventsController } from './events.controller.js';
import { EventsRepository } from './events.repository.js';
import { EventsService } from './events.service.js';

/** The change feed (GET /events), and each host's history for GET /hosts/{host}. */
@Module({
  imports: [DomainsModule, StreamModule],
  controllers: [EventsController],
  providers: [EventsRepository, EventsService],
  exports: [EventsRepository],
})
export class EventsModule {}
