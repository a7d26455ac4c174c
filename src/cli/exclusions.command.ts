import { CommandRunner, SubCommand } from 'nest-commander';
import { ApiError } from '../common/errors/api-error.js';
import { DomainInputError } from '../domains/domains.service.js';
import { ExclusionPatternError, ScopeRulesService } from '../scope/scope-rules.service.js';
import { CliError, CliOutput } from './cli-output.js';

const asCliError = (e: unknown): never => {
  if (e instanceof ExclusionPatternError || e instanceof DomainInputError || e instanceof ApiError) {
    throw new CliError(e.message);
  }
  throw e;
};

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
