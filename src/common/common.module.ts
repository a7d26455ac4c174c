import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ConditionalGetInterceptor, ResponseCache } from './http/conditional-get.js';
import { Metrics } from '../metrics/metrics.js';
import { RouteIndex } from './http/route-index.js';
import { Shutdown } from './shutdown.js';

@Global()
@Module({})
export class CommonModule {
  static forRoot(routes: RouteIndex, metrics: Metrics): DynamicModule {
    return {
      module: CommonModule,
      providers: [
        { provide: RouteIndex, useValue: routes },
        { provide: Metrics, useValue: metrics },
        Shutdown,
        ResponseCache,
        { provide: APP_INTERCEPTOR, useClass: ConditionalGetInterceptor },
      ],
      exports: [RouteIndex, Metrics, Shutdown, ResponseCache],
    };
  }
}
