import { Module } from '@nestjs/common';
import { HostDnsRepository } from './host-dns.repository.js';
import { HostResolver } from './host-resolver.service.js';

/** What the worker learns of hosts beyond their names: DNS answers of the hosts the CT follower records. */
@Module({
  providers: [HostDnsRepository, HostResolver],
  exports: [HostResolver],
})
export class IntelModule {}
