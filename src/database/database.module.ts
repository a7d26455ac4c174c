import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Environment } from '../config/environment.js';
import { DataVersion } from './data-version.js';
import { dataSourceOptions } from './data-source-options.js';
import type { DatabaseTarget } from './database.js';
import { runMigrations } from './migrations.js';
import { DatabaseInfo, MigrationReport } from './database-info.js';

export { DatabaseInfo, MigrationReport };

/** The TypeORM data source; pending migrations are applied before anything else uses it. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(target: DatabaseTarget, env: Environment): DynamicModule {
    const report = new MigrationReport();
    return {
      module: DatabaseModule,
      providers: [
        { provide: MigrationReport, useValue: report },
        { provide: DatabaseInfo, useValue: new DatabaseInfo(target) },
        DataVersion,
      ],
      exports: [MigrationReport, DatabaseInfo, DataVersion],
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...dataSourceOptions(target, env), retryAttempts: 2, retryDelay: 1000 }),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            report.applied = await runMigrations(dataSource, target.kind === 'server');
            return dataSource;
          },
        }),
      ],
    };
  }
}
