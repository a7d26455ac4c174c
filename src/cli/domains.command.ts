import { Injectable } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { DomainsService } from '../domains/domains.service.js';
import { asCliError, CliError, CliOutput, iso } from './cli-output.js';
import { DomainsExcludeCommand } from './exclusions.command.js';
import { DomainsImportCommand } from './import.command.js';

interface AddOptions {
  platform?: string;
  program?: string;
  disabled?: boolean;
}

@SubCommand({
  name: 'add',
  arguments: '<domains...>',
  description: 'Track root domains under a platform; names that are no root domain are refused, the others added',
})
export class DomainsAddCommand extends CommandRunner {
  constructor(
    private readonly domains: DomainsService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(names: string[], options: AddOptions): Promise<void> {
    if (!options.platform)
      throw new CliError('--platform is required (self, hackerone, bugcrowd, intigriti or yeswehack)');
    const { added, existing, refused } = await this.domains
      .add(names, options.platform, options.program ?? null, !options.disabled)
      .catch(asCliError);
    for (const d of added) this.out.line(`added ${d}`);
    for (const d of existing) this.out.line(`already tracked ${d}`);
    // The names refused are said after the others are added, and make the exit code 1.
    if (refused.length > 0) throw new CliError(`not added: ${refused.join('; ')}`);
  }

  @Option({
    flags: '--platform <slug>',
    description: 'Platform slug: self, hackerone, bugcrowd, intigriti or yeswehack',
  })
  parsePlatform(value: string): string {
    return value;
  }

  @Option({ flags: '--program <name>', description: 'Name of the bug-bounty program' })
  parseProgram(value: string): string {
    return value;
  }

  @Option({ flags: '--disabled', description: 'Track but do not scan yet' })
  parseDisabled(): boolean {
    return true;
  }
}

@Injectable()
abstract class DomainsChangeCommand extends CommandRunner {
  constructor(
    protected readonly domains: DomainsService,
    protected readonly out: CliOutput,
  ) {
    super();
  }

  protected report(verb: string, result: { done: string[]; unknown: string[] }): void {
    for (const d of result.done) this.out.line(`${verb} ${d}`);
    if (result.unknown.length > 0) throw new CliError(`not tracked: ${result.unknown.join(', ')}`);
  }
}

@SubCommand({ name: 'enable', arguments: '<domains...>', description: 'Scan these domains again' })
export class DomainsEnableCommand extends DomainsChangeCommand {
  async run(names: string[]): Promise<void> {
    const r = await this.domains.setEnabled(names, true).catch(asCliError);
    this.report('enabled', { done: r.changed, unknown: r.unknown });
  }
}

@SubCommand({
  name: 'disable',
  arguments: '<domains...>',
  description: 'Stop scanning these domains, keeping their hosts',
})
export class DomainsDisableCommand extends DomainsChangeCommand {
  async run(names: string[]): Promise<void> {
    const r = await this.domains.setEnabled(names, false).catch(asCliError);
    this.report('disabled', { done: r.changed, unknown: r.unknown });
  }
}

@SubCommand({
  name: 'remove',
  arguments: '<domains...>',
  description: 'Stop tracking these domains and delete their hosts and scans',
})
export class DomainsRemoveCommand extends DomainsChangeCommand {
  async run(names: string[]): Promise<void> {
    const r = await this.domains.remove(names).catch(asCliError);
    this.report('removed', { done: r.removed, unknown: r.unknown });
  }
}

@SubCommand({ name: 'list', description: 'List tracked root domains' })
export class DomainsListCommand extends CommandRunner {
  constructor(
    private readonly domains: DomainsService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(): Promise<void> {
    const all = await this.domains.list();
    this.out.table(
      ['DOMAIN', 'PLATFORM', 'PROGRAM', 'ENABLED', 'HOSTS', 'LAST SCANNED', 'LAST STATUS'],
      all.map((d) => [
        d.domain,
        d.platformSlug,
        d.program ?? '-',
        d.enabled ? 'yes' : 'no',
        String(d.totalSubdomains),
        iso(d.lastScannedAt),
        d.lastScanStatus ?? '-',
      ]),
    );
  }
}

@Command({
  name: 'domains',
  description: 'Add, enable, disable, remove, list and import tracked root domains, and exclude hosts of them',
  subCommands: [
    DomainsAddCommand,
    DomainsEnableCommand,
    DomainsDisableCommand,
    DomainsRemoveCommand,
    DomainsListCommand,
    DomainsImportCommand,
    DomainsExcludeCommand,
  ],
})
export class DomainsCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: domains add|enable|disable|remove|list|import|exclude'));
  }
}
