import { parse } from 'tldts';
import { MAX_NAME_LENGTH, ROOT_DOMAIN_PATTERN } from './name-patterns.js';

const SYNTAX = new RegExp(ROOT_DOMAIN_PATTERN);

/**
 * The Public Suffix List with its private section: hosting suffixes such as herokuapp.com or
 * s3.amazonaws.com are suffixes, so a program's app.herokuapp.com is its root domain, never herokuapp.com.
 */
export const PSL_OPTIONS = { allowPrivateDomains: true } as const;

/**
 * Why value is not a bare, lowercase, registrable root domain (example.com, example.co.uk), or null when
 * it is one. Registrable means one label below a public suffix of the Public Suffix List (both sections).
 */
export function rootDomainProblem(value: string): string | null {
  if (value.length === 0 || value.length > MAX_NAME_LENGTH) return `must be 1 to ${MAX_NAME_LENGTH} characters`;
  if (value !== value.toLowerCase()) return 'must be lowercase';
  if (/[/:?#@\s]/.test(value)) return 'must be a bare domain, without scheme, port or path';
  if (!SYNTAX.test(value)) return 'is not a valid domain name';
  const parsed = parse(value, PSL_OPTIONS);
  if (parsed.domain !== value) {
    return parsed.domain ? `is not a root domain (its root domain is ${parsed.domain})` : 'is not a registrable domain';
  }
  return null;
}

export function isRootDomain(value: unknown): value is string {
  return typeof value === 'string' && rootDomainProblem(value) === null;
}
