import { Command, CommandRunner } from 'nest-commander';
import { MigrationReport } from '../database/database.module.js';
import { CliOutput } from './cli-output.js';

/** Migrations run whenever the CLI or the service starts; this command only makes that explicit. */
@Command({ name: 'migrate', description: 'Apply pending database migrations' })
export class MigrateCommand extends CommandRunner {
  constructor(
    private readonly report: MigrationReport,
    private readonly out: CliOutput,
  ) {
    super();
  }

  run(): Promise<void> {
    if (this.report.applied.length === 0) this.out.line('Database schema is up to date.');
    for (const name of this.report.applied) this.out.line(`applied ${name}`);
    return Promise.resolve();
  }
}
