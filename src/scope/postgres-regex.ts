import { type Queryable, rows } from '../database/sql.js';
import { ExclusionPatternError } from './exclusion-pattern.js';

/** PostgreSQL's SQLSTATE invalid_regular_expression. */
const INVALID_REGULAR_EXPRESSION = '2201B';

/** PostgreSQL's reason for refusing a regular expression, or null when `e` is some other failure. */
function refusalOf(e: unknown): string | null {
  const error = e as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = error.code ?? error.driverError?.code;
  if (code !== INVALID_REGULAR_EXPRESSION || typeof error.message !== 'string') return null;
  return error.message.replace(/^invalid regular expression:\s*/, '');
}

/** PostgreSQL's reason for refusing to compile `regex`, or null when it compiles. */
export async function compileProblem(db: Queryable, regex: string): Promise<string | null> {
  try {
    await rows(db, `SELECT '' ~ $1 AS matched`, [regex]);
    return null;
  } catch (e) {
    const problem = refusalOf(e);
    if (problem === null) throw e;
    return problem;
  }
}

/**
 * Compiles each rule's regex in PostgreSQL, which matches every host with it, in the transaction that stores it: a
 * pattern that got past the syntax check but not PostgreSQL's compiler (its limits) is refused as a bad pattern
 * here, never stored to make later statements fail. Each regex is compiled once.
 */
export async function requireCompiled(m: Queryable, rules: { pattern: string; regex: string }[]): Promise<void> {
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.regex)) continue;
    seen.add(rule.regex);
    const problem = await compileProblem(m, rule.regex);
    if (problem !== null) {
      throw new ExclusionPatternError(`${rule.pattern} cannot be compiled by PostgreSQL: ${problem}`);
    }
  }
}
