import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { envelope } from '../common/envelope.js';
import { DomainsService } from '../domains/domains.service.js';
import { PlatformsService } from '../platforms/platforms.service.js';
import { type ExclusionPattern, ExclusionPatternError, parseExclusionPattern } from './exclusion-pattern.js';
import { type ProgramExclusionRow, ProgramRulesRepository } from './program-rules.repository.js';
import { type ExclusionRow, ScopeRulesRepository } from './scope-rules.repository.js';

/** Reads patterns, all or none: the first refused one names its reason. */
export function parsePatterns(patterns: string[]): ExclusionPattern[] {
  if (patterns.length === 0) throw new ExclusionPatternError('give at least one pattern');
  return patterns.map((text) => {
    const parsed = parseExclusionPattern(text);
    if (typeof parsed === 'string') throw new ExclusionPatternError(parsed);
    return parsed;
  });
}

/** The exclusion rules of tracked root domains, for the API and the CLI. */
@Injectable()
export class ScopeRulesService {
  constructor(
    private readonly rules: ScopeRulesRepository,
    private readonly programRules: ProgramRulesRepository,
    private readonly domains: DomainsService,
    private readonly platforms: PlatformsService,
  ) {}

  async list(domain: string): Promise<ExclusionRow[]> {
    return this.rules.list((await this.domains.requireTracked(domain)).id);
  }

  async add(domain: string, patterns: string[]) {
    const parsed = parsePatterns(patterns);
    const { id } = await this.domains.requireTracked(domain);
    // A host or wildcard outside the domain could never match one of its hosts: a typo, said rather than kept.
    const outside = parsed.find((p) => p.kind !== 'regex' && !p.pattern.endsWith(`.${domain}`) && p.pattern !== domain);
    if (outside) throw new ExclusionPatternError(`${outside.pattern} names no host of ${domain}`);
    return this.rules.add(id, parsed);
  }

  async remove(domain: string, idsOrPatterns: string[]) {
    const { id } = await this.domains.requireTracked(domain);
    return this.rules.remove(id, patternKeys(idsOrPatterns));
  }

  /** POST: the rule, and how many hosts it moved out of scope; 201 when it is new. */
  async create(domain: string, pattern: string) {
    const { rules, moved } = await this.add(domain, [pattern]);
    return envelope(rules[0], { hosts_moved: moved });
  }

  /**
   * DELETE: the rule removed, and how many hosts came back in scope; 404 when the domain has no such rule of its
   * own (a program's copy is removed with the program's rule).
   */
  async delete(domain: string, id: string) {
    requireRuleId(id);
    const { rules, moved } = await this.remove(domain, [id]);
    if (rules.length === 0) {
      const copy = (await this.list(domain)).find((r) => r.id === id && r.program_rule !== null);
      throw AppError.notFound(
        copy
          ? `exclusion rule ${id} of ${domain} is its program's rule ${copy.program_rule}: remove that one`
          : `${domain} has no exclusion rule ${id}`,
      );
    }
    return envelope(rules[0], { hosts_moved: moved });
  }

  /** A platform's program rules, or one program's (an unknown platform is a 404). */
  async listProgram(platform: string, program: string | null): Promise<ProgramExclusionRow[]> {
    await this.platforms.requirePlatform(platform);
    return this.programRules.list(platform, program);
  }

  /**
   * Adds rules to a program: they apply to every root domain of the platform tracked under that program name, now
   * and later. The program must have a tracked root domain, so that a misspelt name is said rather than kept.
   */
  async addProgram(platform: string, program: string, patterns: string[]) {
    const parsed = parsePatterns(patterns);
    if ((await this.programRules.domainCount(platform, program)) === 0) {
      await this.platforms.requirePlatform(platform);
      throw AppError.notFound(`no tracked root domain of ${platform} belongs to a program named "${program}"`);
    }
    return this.programRules.add(platform, program, parsed);
  }

  /** Removes program rules by id, or by pattern (of one program, when given). */
  async removeProgram(platform: string, program: string | null, idsOrPatterns: string[]) {
    await this.platforms.requirePlatform(platform);
    return this.programRules.remove(platform, program, patternKeys(idsOrPatterns));
  }

  /** POST: the program's rule, and how many hosts it moved out of scope. */
  async createProgram(platform: string, program: string, pattern: string) {
    const { rules, moved } = await this.addProgram(platform, program, [pattern]);
    return envelope(rules[0], { hosts_moved: moved });
  }

  /** DELETE: the program's rule removed with its copies; 404 when the platform has no such rule. */
  async deleteProgram(platform: string, id: string) {
    requireRuleId(id);
    const { rules, moved } = await this.removeProgram(platform, null, [id]);
    if (rules.length === 0) throw AppError.notFound(`${platform} has no program exclusion rule ${id}`);
    return envelope(rules[0], { hosts_moved: moved });
  }
}

function requireRuleId(id: string): void {
  if (!/^\d{1,18}$/.test(id)) throw new AppError('invalid_id', 'id must be the id of an exclusion rule (digits)');
}

/** Ids and patterns to remove by: a pattern is removed as it was kept (wildcards and hosts lower-cased). */
function patternKeys(idsOrPatterns: string[]): string[] {
  return idsOrPatterns.flatMap((p) => {
    const parsed = parseExclusionPattern(p);
    return typeof parsed === 'string' ? [p] : [p, parsed.pattern];
  });
}
