import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { Environment } from '../config/environment.js';
import { VersionSource } from '../common/http/conditional-get.js';
import { DataVersion } from './data-version.js';
import { ListCounts } from './list-counts.js';
import { dataSourceOptions } from './data-source-options.js';
import type { DatabaseTarget } from './database.js';
import { runMigrations } from './migrations.js';
import { DatabaseInfo, MigrationReport } from './database-info.js';

export { DatabaseInfo, MigrationReport };

/** Where a data source that is never connected would point: nowhere it could reach. */
const UNCONNECTED: DatabaseTarget = { kind: 'server', url: 'postgres://unconnected.invalid/none' };

/**
 * The TypeORM data source; pending migrations are applied before anything else uses it. With `target` null (the
 * CLI asked only for its help) the data source is made but never connected: nothing is opened, or created.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(
    target: DatabaseTarget | null,
    env: Environment,
    entities: DataSourceOptions['entities'],
  ): DynamicModule {
    const report = new MigrationReport();
    return {
      module: DatabaseModule,
      providers: [
        { provide: MigrationReport, useValue: report },
        { provide: DatabaseInfo, useValue: new DatabaseInfo(target ?? UNCONNECTED) },
        DataVersion,
        { provide: VersionSource, useExisting: DataVersion },
        ListCounts,
      ],
      exports: [MigrationReport, DatabaseInfo, DataVersion, VersionSource, ListCounts],
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(target ?? UNCONNECTED, env, entities),
            retryAttempts: 2,
            retryDelay: 1000,
            manualInitialization: target === null,
          }),
          dataSourceFactory: async (options) => {
            if (target === null) return new DataSource(options!);
            const dataSource = await new DataSource(options!).initialize();
            report.applied = await runMigrations(dataSource, target.kind === 'server');
            return dataSource;
          },
        }),
      ],
    };
  }
}
