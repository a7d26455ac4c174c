import { DynamicModule, Global, Module } from '@nestjs/common';
import { Environment } from './environment.js';

/** Makes the validated Environment injectable everywhere; it is read once, at start. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(environment: Environment): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: Environment, useValue: environment }],
      exports: [Environment],
    };
  }
}
