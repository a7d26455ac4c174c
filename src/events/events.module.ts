import { Global, Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { EventsController } from './events.controller.js';
import { EventsRepository } from './events.repository.js';
import { EventsService } from './events.service.js';
import { HorizonRepository } from './horizon.repository.js';
import { NewHostSignal } from './new-host-signal.js';

/** The signal is global: scans publish it wherever they run, streams listen where the API runs. */
@Global()
@Module({
  providers: [NewHostSignal],
  exports: [NewHostSignal],
})
export class NewHostSignalModule {}

/** The change feed (GET /events), each host's history for GET /hosts/{host}, and the horizon both feeds stop at. */
@Module({
  imports: [DomainsModule],
  controllers: [EventsController],
  providers: [EventsService, EventsRepository, HorizonRepository],
  exports: [EventsRepository, HorizonRepository],
})
export class EventsModule {}
