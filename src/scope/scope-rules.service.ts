import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { envelope } from '../common/envelope.js';
import { DomainsService } from '../domains/domains.service.js';
import { type ExclusionPattern, parseExclusionPattern } from './exclusion-pattern.js';
import { type ExclusionRow, ScopeRulesRepository } from './scope-rules.repository.js';

/** A refused pattern, with the reason; the API answers it as invalid_body, the CLI prints it. */
export class ExclusionPatternError extends Error {}

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
    private readonly domains: DomainsService,
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
    // A pattern is removed as it was kept: wildcards and hosts lower-cased.
    const keys = idsOrPatterns.flatMap((p) => {
      const parsed = parseExclusionPattern(p);
      return typeof parsed === 'string' ? [p] : [p, parsed.pattern];
    });
    return this.rules.remove(id, keys);
  }

  /** POST: the rule, and how many hosts it moved out of scope; 201 when it is new. */
  async create(domain: string, pattern: string) {
    try {
      const { rules, moved } = await this.add(domain, [pattern]);
      return envelope(rules[0], { hosts_moved: moved });
    } catch (e) {
      throw e instanceof ExclusionPatternError ? new ApiError('invalid_body', e.message) : e;
    }
  }

  /** DELETE: the rule removed, and how many hosts came back in scope; 404 when the domain has no such rule. */
  async delete(domain: string, id: string) {
    if (!/^\d{1,18}$/.test(id)) throw new ApiError('invalid_id', 'id must be the id of an exclusion rule (digits)');
    const { rules, moved } = await this.remove(domain, [id]);
    if (rules.length === 0) throw ApiError.notFound(`${domain} has no exclusion rule ${id}`);
    return envelope(rules[0], { hosts_moved: moved });
  }
}
