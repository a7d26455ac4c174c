import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { StreamModule } from '../stream/stream.module.js';
import { EventsController } from './events.controller.js';
import { EventsService } from './events.service.js';

/** The change feed (GET /events), and each host's history for GET /hosts/{host}. */
@Module({
  imports: [DomainsModule, StreamModule],
  controllers: [EventsController],
  providers: [EventsService],
  exports: [StreamModule],
})
export class EventsModule {}
