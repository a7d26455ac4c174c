import { Global, Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
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
  providers: [StreamRepository, StreamService],
  exports: [StreamRepository],
})
export class StreamModule {}
