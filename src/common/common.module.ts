import { type DynamicModule, Global, Module } from '@nestjs/common';
import { RouteIndex } from './http/route-index.js';

@Global()
@Module({})
export class CommonModule {
  static forRoot(routes: RouteIndex): DynamicModule {
    return { module: CommonModule, providers: [{ provide: RouteIndex, useValue: routes }], exports: [RouteIndex] };
  }
}
