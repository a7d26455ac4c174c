import { Global, Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { EventsRepository } from '../events/events.repository.js';
import { NewHostSignal } from './new-host-signal.js';
import { StreamController } from './stream.controller.js';
import { StreamRepository } from './stream.repository.js';
import { StreamService } from './stream.service.js';

/** The signal is global: scans publish it wherever they run, streams listen where the API runs. */
@Global()
@Module({
  providers: [NewHostSignal],
  exports: [NewHostSignal],
})
export class NewHostSignalModule {}

@Module({
  imports: [DomainsModule],
  controllers: [StreamController],
  // The change feed's repository lives here too: a stream with `types` reads it, and GET /events and
  // GET /hosts/{host} reach it through this module.
  providers: [StreamRepository, StreamService, EventsRepository],
  exports: [StreamRepository, StreamService, EventsRepository],
})
export class StreamModule {}
