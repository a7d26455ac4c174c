import type { EntityManager } from 'typeorm';
import { rows } from '../database/sql.js';
import { ExclusionPatternError } from './exclusion-pattern.js';

/** PostgreSQL's SQLSTATE invalid_regular_expression. */
const INVALID_REGULAR_EXPRESSION = '2201B';

/** PostgreSQL's reason for refusing a regular expression, or null when `e` is some other failure. */
export function refusalOf(e: unknown): string | null {
  const error = e as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = error.code ?? error.driverError?.code;
  if (code !== INVALID_REGULAR_EXPRESSION || typeof error.message !== 'string') return null;
  return error.message.replace(/^invalid regular expression:\s*/, '');
}

/**
 * Compiles each rule's regex in PostgreSQL, which matches every host with it, in the transaction that stores it: a
 * pattern that got past the syntax check but not PostgreSQL's compiler (its limits) is refused as a bad pattern
 * here, never stored to make later statements fail. Each regex is compiled once.
 */
export async function requireCompiled(m: EntityManager, rules: { pattern: string; regex: string }[]): Promise<void> {
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.regex)) continue;
    seen.add(rule.regex);
    try {
      await rows(m, `SELECT '' ~ $1 AS matched`, [rule.regex]);
    } catch (e) {
      const problem = refusalOf(e);
      if (problem === null) throw e;
      throw new ExclusionPatternError(`${rule.pattern} cannot be compiled by PostgreSQL: ${problem}`);
    }
  }
}
