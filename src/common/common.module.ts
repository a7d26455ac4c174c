import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ResponseCache } from './http/conditional-get.js';
import { RouteIndex } from './http/route-index.js';
import { Shutdown } from './shutdown.js';

@Global()
@Module({})
export class CommonModule {
  static forRoot(routes: RouteIndex): DynamicModule {
    return {
      module: CommonModule,
      providers: [{ provide: RouteIndex, useValue: routes }, Shutdown, ResponseCache],
      exports: [RouteIndex, Shutdown, ResponseCache],
    };
  }
}
