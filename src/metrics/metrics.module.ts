import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Metrics } from './metrics.js';

/** The process's one Metrics registry, made before the app (create-app.ts) and shared with every module. */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(metrics: Metrics): DynamicModule {
    return { module: MetricsModule, providers: [{ provide: Metrics, useValue: metrics }], exports: [Metrics] };
  }
}
