import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { CtService } from '../ct/ct.service.js';
import { CliError, CliOutput } from './cli-output.js';

const count = (n: number | null) => (n === null ? '-' : String(n));

@SubCommand({ name: 'status', description: 'Where each followed Certificate Transparency log stands' })
export class CtStatusCommand extends CommandRunner {
  constructor(
    private readonly ct: CtService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(): Promise<void> {
    const logs = await this.ct.status();
    if (logs.length === 0) {
      this.out.note('No CT log is followed (set CT_LOGS on a worker).');
      return;
    }
    this.out.table(
      ['URL', 'KIND', 'TREE_SIZE', 'POSITION', 'LAG', 'ENTRIES', 'HOSTS', 'LAST_POLLED', 'LAST_ERROR_AT', 'LAST_ERROR'],
      logs.map((l) => [
        l.url,
        l.kind,
        count(l.tree_size),
        count(l.position),
        count(l.lag),
        String(l.entries_total),
        String(l.hosts_total),
        l.last_polled_at ?? '-',
        l.last_error_at ?? '-',
        l.last_error ?? '-',
      ]),
    );
  }
}

@Command({
  name: 'ct',
  description: 'The Certificate Transparency logs the worker follows',
  subCommands: [CtStatusCommand],
})
export class CtCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: ct status'));
  }
}
