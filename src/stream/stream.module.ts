import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { EventsModule } from '../events/events.module.js';
import { StreamController } from './stream.controller.js';
import { StreamRepository } from './stream.repository.js';
import { StreamService } from './stream.service.js';

/** GET /subdomains/stream: server-sent events over the hosts keyset or the change feed. */
@Module({
  imports: [DomainsModule, EventsModule],
  controllers: [StreamController],
  providers: [StreamRepository, StreamService],
  exports: [StreamService],
})
export class StreamModule {}
