import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { MATCHES_NOTHING, ScopeRulesRepository, type StoredRegexRule } from './scope-rules.repository.js';

/** A stored rule PostgreSQL cannot compile, and why. */
export interface FlaggedRule {
  rule: StoredRegexRule;
  problem: string;
}

/**
 * At start, finds the stored regular-expression rules PostgreSQL cannot compile: kept before patterns were compiled
 * as they came, or written to the database by hand. Such a rule would make every statement that matches hosts
 * against rules fail (the scans of its domain, rule changes of others); it is made to match nothing instead, and
 * named in a warning at every start until it is removed.
 */
@Injectable()
export class StoredRulesCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Scope');

  constructor(private readonly rules: ScopeRulesRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      for (const { rule, problem } of await this.check()) this.logger.warn(warningFor(rule, problem));
    } catch (e) {
      this.logger.warn(`could not check the stored exclusion rules: ${(e as Error).message}`);
    }
  }

  /** The rules PostgreSQL cannot compile, each made to match nothing. */
  async check(): Promise<FlaggedRule[]> {
    const flagged: FlaggedRule[] = [];
    const problems = new Map<string, string | null>();
    for (const rule of await this.rules.storedRegexRules()) {
      // A rule made to match nothing at an earlier start is judged by its pattern, as it was given.
      const source = rule.pattern.replace(/^re:/, '');
      const disabled = rule.regex === MATCHES_NOTHING && source !== MATCHES_NOTHING;
      const regex = disabled ? source : rule.regex;
      if (!problems.has(regex)) problems.set(regex, await this.rules.compileProblem(regex));
      const problem = problems.get(regex) ?? (disabled ? 'refused at an earlier start' : null);
      if (problem === null) continue;
      if (!disabled) await this.rules.matchNothing(rule.regex);
      flagged.push({ rule, problem });
    }
    return flagged;
  }
}

function warningFor(rule: StoredRegexRule, problem: string): string {
  const [what, removal] = rule.domain
    ? [`exclusion rule ${rule.id} of ${rule.domain}`, `/api/v1/domains/${rule.domain}/exclusions/${rule.id}`]
    : [
        `exclusion rule ${rule.id} of ${rule.platform} program "${rule.program}"`,
        `/api/v1/platforms/${rule.platform}/exclusions/${rule.id}`,
      ];
  return (
    `${what}, ${rule.pattern}, cannot be compiled by PostgreSQL (${problem}): it excludes no host until it is ` +
    `removed (DELETE ${removal}) and replaced by a pattern the service accepts`
  );
}
