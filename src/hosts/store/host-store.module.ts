import { Global, Module } from '@nestjs/common';
import { HostStore } from './host-store.js';

/** The host store, for every process that writes hosts (the API, the worker, the CLI). */
@Global()
@Module({ providers: [HostStore], exports: [HostStore] })
export class HostStoreModule {}
