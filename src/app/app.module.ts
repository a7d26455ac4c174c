import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AccountModule } from '../web/account/account.module.js';
import { ApiIndexModule } from '../api-index/api-index.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { AuthGuard } from '../auth/auth.guard.js';
import { CommonModule } from '../common/common.module.js';
import { ApiExceptionFilter } from '../common/filters/api-exception.filter.js';
import type { Logger } from 'pino';
import { loggerParams } from '../common/logging/logging.js';
import { ConditionalGetGuard } from '../common/http/conditional-get.js';
import type { RouteIndex } from '../common/http/route-index.js';
import type { Metrics } from '../metrics/metrics.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { ApiValidationPipe } from '../common/validation/api-validation.pipe.js';
import { ConfigModule } from '../config/config.module.js';
import type { Environment } from '../config/environment.js';
import { ENTITIES } from './entities.js';
import { HostStoreModule } from '../hosts/store/host-store.module.js';
import { DatabaseModule } from '../database/database.module.js';
import type { DatabaseTarget } from '../database/database.js';
import { CtModule } from '../ct/ct.module.js';
import { DashboardModule } from '../web/dashboard/dashboard.module.js';
import { DomainsModule } from '../domains/domains.module.js';
import { EventsModule, NewHostSignalModule } from '../events/events.module.js';
import { HealthModule } from '../health/health.module.js';
import { HostsModule } from '../hosts/hosts.module.js';
import { ScopeModule } from '../scope/scope.module.js';
import { StoredRulesCheck } from '../scope/stored-rules.check.js';
import { PlatformsModule } from '../platforms/platforms.module.js';
import { DiscoveryModule } from '../discovery/discovery.module.js';
import { ExportModule } from '../export/export.module.js';
import { StatsModule } from '../stats/stats.module.js';
import { StreamModule } from '../stream/stream.module.js';
import { WebhooksApiModule } from '../notify/notify.module.js';
import { WorkerModule } from './worker.module.js';

/**
 * The HTTP API: every feature module behind the key's guard and the conditional answer's, one validation pipe and one
 * error filter.
 */
@Module({})
export class AppModule {
  static forRoot(
    env: Environment,
    database: DatabaseTarget,
    routes: RouteIndex,
    metrics: Metrics,
    logger: Logger,
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(env),
        LoggerModule.forRoot(loggerParams(logger)),
        CommonModule.forRoot(routes),
        MetricsModule.forRoot(metrics),
        DatabaseModule.forRoot(database, env, ENTITIES),
        HostStoreModule,
        AuthModule,
        PlatformsModule,
        DomainsModule,
        HostsModule,
        ScopeModule,
        WebhooksApiModule,
        DiscoveryModule,
        StatsModule,
        ExportModule,
        CtModule,
        NewHostSignalModule,
        StreamModule,
        EventsModule,
        HealthModule,
        ApiIndexModule,
        AccountModule,
        DashboardModule,
        ...(env.WORKER === 'on' ? [WorkerModule] : []),
      ],
      providers: [
        // In this order: the key is known before its conditional answer is looked up.
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: ConditionalGetGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useClass: ApiValidationPipe },
        // Stored exclusion rules PostgreSQL cannot compile are named, and kept from breaking scans, at start.
        StoredRulesCheck,
      ],
    };
  }
}
