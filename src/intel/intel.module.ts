import { Module } from '@nestjs/common';
import { HostDnsRepository } from './dns/host-dns.repository.js';
import { HostProber } from './probe/host-prober.service.js';
import { HostResolver } from './dns/host-resolver.service.js';

/**
 * What the worker learns of hosts beyond their names: DNS answers of the hosts the CT follower records, and the
 * HTTP probe of every host that resolves.
 */
@Module({
  providers: [HostDnsRepository, HostResolver, HostProber],
  exports: [HostResolver, HostProber],
})
export class IntelModule {}
