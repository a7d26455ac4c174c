import { Module } from '@nestjs/common';
import { AccountModule } from '../account/account.module.js';
import { CtModule } from '../../ct/ct.module.js';
import { DomainsModule } from '../../domains/domains.module.js';
import { HostsModule } from '../../hosts/hosts.module.js';
import { PlatformsModule } from '../../platforms/platforms.module.js';
import { DiscoveryModule } from '../../discovery/discovery.module.js';
import { StatsModule } from '../../stats/stats.module.js';
import { StreamModule } from '../../stream/stream.module.js';
import { DashboardController } from './dashboard.controller.js';

/** The paths the dashboard serves, outside the API prefix. */
export const DASHBOARD_PATHS = [
  'app',
  'app/programs',
  'app/domains/:domain',
  'app/domains/:domain/scans',
  'app/search',
  'app/hosts/:host',
  'app/stream',
  'app/app.js',
  'app/uplot.js',
  'app/uplot.css',
];

@Module({
  imports: [
    AccountModule,
    PlatformsModule,
    StatsModule,
    DiscoveryModule,
    DomainsModule,
    HostsModule,
    CtModule,
    StreamModule,
  ],
  controllers: [DashboardController],
})
export class DashboardModule {}
