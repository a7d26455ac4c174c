import { type DynamicModule, Module } from '@nestjs/common';
import { ApiKeysRepository } from '../auth/api-keys.repository.js';
import { ApiKeysService } from '../auth/api-keys.service.js';
import { ApiKeyEntity } from '../auth/entities/api-key.entity.js';
import { ConfigModule } from '../config/config.module.js';
import type { Environment } from '../config/environment.js';
import { ENTITIES } from '../app/entities.js';
import { HostStoreModule } from '../hosts/store/host-store.module.js';
import { DatabaseModule } from '../database/database.module.js';
import type { DatabaseTarget } from '../database/database.js';
import { DomainsModule } from '../domains/domains.module.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CliOutput, CliProgramName } from './cli-output.js';
import { CtCommand, CtStatusCommand } from './ct.command.js';
import { CtModule } from '../ct/ct.module.js';
import {
  DomainsAddCommand,
  DomainsCommand,
  DomainsDisableCommand,
  DomainsEnableCommand,
  DomainsListCommand,
  DomainsRemoveCommand,
} from './domains.command.js';
import { MigrateCommand } from './migrate.command.js';
import { ScanCommand } from './scan.command.js';
import { SourcesCommand } from './sources.command.js';
import { SeedDemoCommand } from './seed-demo.command.js';
import { DomainsImportCommand } from './import.command.js';
import {
  DomainsExcludeCommand,
  ExcludeAddCommand,
  ExcludeListCommand,
  ExcludeRemoveCommand,
  ProgramExcludeAddCommand,
  ProgramExcludeListCommand,
  ProgramExcludeRemoveCommand,
  ProgramsCommand,
  ProgramsExcludeCommand,
} from './exclusions.command.js';
import { ScopeModule } from '../scope/scope.module.js';
import { ImportModule } from '../import/import.module.js';
import { DemoModule } from '../demo/demo.module.js';
import { DiscoveryModule } from '../discovery/discovery.module.js';
import { ScanClaimsRepository } from '../discovery/scan-claims.repository.js';
import { TokensCommand, TokensCreateCommand, TokensListCommand, TokensRevokeCommand } from './tokens.command.js';
import { UsersModule } from '../users/users.module.js';
import { NewHostSignalModule } from '../events/events.module.js';
import { WebhooksModule } from '../notify/notify.module.js';
import { WebhooksAddCommand, WebhooksCommand, WebhooksListCommand, WebhooksRemoveCommand } from './webhooks.command.js';
import {
  UsersCommand,
  UsersCreateCommand,
  UsersDisableCommand,
  UsersEnableCommand,
  UsersListCommand,
  UsersPasswordCommand,
} from './users.command.js';

/** The operator's commands, on the same modules and database as the service. */
@Module({})
export class CliModule {
  /** `database` null: the commands are listed (help), and no database is opened. */
  static forRoot(env: Environment, database: DatabaseTarget | null): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(env),
        DatabaseModule.forRoot(database, env, ENTITIES),
        HostStoreModule,
        TypeOrmModule.forFeature([ApiKeyEntity]),
        DomainsModule,
        DiscoveryModule,
        DemoModule,
        ImportModule,
        UsersModule,
        NewHostSignalModule,
        WebhooksModule,
        CtModule,
        ScopeModule,
      ],
      providers: [
        CliOutput,
        CliProgramName,
        ApiKeysRepository,
        ApiKeysService,
        TokensCommand,
        TokensCreateCommand,
        WebhooksCommand,
        WebhooksAddCommand,
        WebhooksListCommand,
        WebhooksRemoveCommand,
        TokensListCommand,
        TokensRevokeCommand,
        UsersCommand,
        UsersCreateCommand,
        UsersListCommand,
        UsersDisableCommand,
        UsersEnableCommand,
        UsersPasswordCommand,
        DomainsCommand,
        DomainsAddCommand,
        DomainsEnableCommand,
        DomainsDisableCommand,
        DomainsRemoveCommand,
        DomainsListCommand,
        MigrateCommand,
        ScanCommand,
        SourcesCommand,
        SeedDemoCommand,
        DomainsImportCommand,
        DomainsExcludeCommand,
        ExcludeAddCommand,
        ExcludeListCommand,
        ExcludeRemoveCommand,
        ProgramsCommand,
        ProgramsExcludeCommand,
        ProgramExcludeAddCommand,
        ProgramExcludeListCommand,
        ProgramExcludeRemoveCommand,
        ScanClaimsRepository,
        CtCommand,
        CtStatusCommand,
      ],
    };
  }
}
