import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ResponseCache } from './http/conditional-get.js';
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
      ],
      exports: [RouteIndex, Metrics, Shutdown, ResponseCache],
    };
  }
}
