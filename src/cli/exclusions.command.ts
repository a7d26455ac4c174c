import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { ScopeRulesService } from '../scope/scope-rules.service.js';
import { asCliError, CliError, CliOutput } from './cli-output.js';

const moved = (n: number, where: string) => `${n} ${n === 1 ? 'host' : 'hosts'} moved ${where}.`;

@SubCommand({
  name: 'add',
  arguments: '<domain> <patterns...>',
  description: 'Exclude hosts of a root domain: an exact host, a wildcard (*.dev.example.com) or re:REGEX',
})
export class ExcludeAddCommand extends CommandRunner {
  constructor(
    private readonly rules: ScopeRulesService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([domain, ...patterns]: string[]): Promise<void> {
    const { rules, moved: n } = await this.rules.add(domain, patterns).catch(asCliError);
    for (const rule of rules) this.out.line(`excluded ${rule.pattern} (${rule.kind}, rule ${rule.id})`);
    this.out.note(moved(n, 'out of scope'));
  }
}

@SubCommand({ name: 'list', arguments: '<domain>', description: "List a root domain's exclusion rules" })
export class ExcludeListCommand extends CommandRunner {
  constructor(
    private readonly rules: ScopeRulesService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([domain]: string[]): Promise<void> {
    const rules = await this.rules.list(domain).catch(asCliError);
    this.out.table(
      ['ID', 'KIND', 'PATTERN', 'ORIGIN', 'ADDED'],
      rules.map((r) => [r.id, r.kind, r.pattern, r.origin, r.created_at]),
    );
  }
}

@SubCommand({
  name: 'remove',
  arguments: '<domain> <patterns...>',
  description: 'Remove exclusion rules (by pattern or id); the hosts no rule names come back in scope',
})
export class ExcludeRemoveCommand extends CommandRunner {
  constructor(
    private readonly rules: ScopeRulesService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([domain, ...patterns]: string[]): Promise<void> {
    const { rules, moved: n } = await this.rules.remove(domain, patterns).catch(asCliError);
    if (rules.length === 0) throw new CliError(`${domain} has no exclusion rule ${patterns.join(', ')}`);
    for (const rule of rules) this.out.line(`removed ${rule.pattern}`);
    this.out.note(moved(n, 'back in scope'));
  }
}

@SubCommand({
  name: 'exclude',
  description: "Manage a root domain's exclusion rules: add, list, remove",
  subCommands: [ExcludeAddCommand, ExcludeListCommand, ExcludeRemoveCommand],
})
export class DomainsExcludeCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: domains exclude add|list|remove DOMAIN [PATTERN…]'));
  }
}

@SubCommand({
  name: 'add',
  arguments: '<platform> <program> <patterns...>',
  description: "Exclude hosts of every root domain of a program, now and later (quote a program's name with spaces)",
})
export class ProgramExcludeAddCommand extends CommandRunner {
  constructor(
    private readonly rules: ScopeRulesService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([platform, program, ...patterns]: string[]): Promise<void> {
    const { rules, moved: n } = await this.rules.addProgram(platform, program, patterns).catch(asCliError);
    for (const rule of rules) {
      this.out.line(`excluded ${rule.pattern} (${rule.kind}, program rule ${rule.id}, ${rule.domains} root domains)`);
    }
    this.out.note(moved(n, 'out of scope'));
  }
}

@SubCommand({
  name: 'list',
  arguments: '<platform> [program]',
  description: "List the exclusion rules of a platform's programs, or of one",
})
export class ProgramExcludeListCommand extends CommandRunner {
  constructor(
    private readonly rules: ScopeRulesService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([platform, program]: string[]): Promise<void> {
    const rules = await this.rules.listProgram(platform, program ?? null).catch(asCliError);
    this.out.table(
      ['ID', 'PROGRAM', 'KIND', 'PATTERN', 'DOMAINS', 'ADDED'],
      rules.map((r) => [r.id, r.program, r.kind, r.pattern, String(r.domains), r.created_at]),
    );
  }
}

@SubCommand({
  name: 'remove',
  arguments: '<platform> <program> <patterns...>',
  description: "Remove a program's exclusion rules (by pattern or id) from all its root domains",
})
export class ProgramExcludeRemoveCommand extends CommandRunner {
  constructor(
    private readonly rules: ScopeRulesService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([platform, program, ...patterns]: string[]): Promise<void> {
    const { rules, moved: n } = await this.rules.removeProgram(platform, program, patterns).catch(asCliError);
    if (rules.length === 0) throw new CliError(`${program} has no exclusion rule ${patterns.join(', ')}`);
    for (const rule of rules) this.out.line(`removed ${rule.pattern}`);
    this.out.note(moved(n, 'back in scope'));
  }
}

@SubCommand({
  name: 'exclude',
  description: "Manage a program's exclusion rules: add, list, remove",
  subCommands: [ProgramExcludeAddCommand, ProgramExcludeListCommand, ProgramExcludeRemoveCommand],
})
export class ProgramsExcludeCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: programs exclude add|list|remove PLATFORM [PROGRAM] [PATTERN…]'));
  }
}

@Command({
  name: 'programs',
  description: "Exclude hosts of a program's root domains: programs exclude add|list|remove",
  subCommands: [ProgramsExcludeCommand],
})
export class ProgramsCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: programs exclude add|list|remove PLATFORM [PROGRAM] [PATTERN…]'));
  }
}
