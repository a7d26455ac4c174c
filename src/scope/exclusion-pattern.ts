import { RE2JS } from 're2js';
import { AppError, type ErrorCode } from '../common/errors/app-error.js';
import { hasControlCharacters } from '../common/validation/control-characters.js';
import { portabilityProblem } from './regex-portability.js';

/** How a rule names the hosts it excludes. */
export const EXCLUSION_KINDS = ['host', 'wildcard', 'regex'] as const;
export type ExclusionKind = (typeof EXCLUSION_KINDS)[number];

/** The longest pattern accepted, in characters (a host name's own limit is 253). */
export const MAX_PATTERN_LENGTH = 256;

/** A refused pattern, with the reason; the API answers it as invalid_body, the CLI prints it. */
export class ExclusionPatternError extends AppError {
  constructor(message: string, code: ErrorCode = 'invalid_body') {
    super(code, message);
  }
}

export interface ExclusionPattern {
  kind: ExclusionKind;
  /** The pattern as kept and shown: host and wildcard lower-cased, regex with its `re:` prefix. */
  pattern: string;
  /** An anchored PostgreSQL regular expression that matches exactly the host names the pattern names. */
  regex: string;
}

/** A label of a host name, or of a wildcard pattern with `*` standing for any run of label characters. */
const LABEL = /^[a-z0-9_*](?:[a-z0-9_*-]*[a-z0-9_*])?$/;
/** Characters of a label, as the regex matches them. */
const LABEL_CHARS = '[a-z0-9_-]';

const escapeRegex = (text: string) => text.replace(/[.\\+?^$()[\]{}|*]/g, '\\$&');

/**
 * Reads an exclusion pattern:
 * - an exact host, `staging.example.com`;
 * - a wildcard, where a label `*` stands for one or more labels (`*.dev.example.com`: every host under
 *   dev.example.com, not dev.example.com itself) and a `*` inside a label for any run of label characters
 *   (`dev-*.example.com`, `api*.example.com`);
 * - a regular expression, `re:^staging\d+\.`, matched against the lower-case host name anywhere unless anchored.
 *
 * A regular expression must be RE2 syntax, checked by re2js: no back-references and no look-around, the features
 * that make a matcher backtrack. PostgreSQL then matches it with its DFA alone (a plain `~` asks for no
 * sub-matches), in time linear in the host name, so a hostile pattern cannot hang the statement that re-evaluates
 * a domain's hosts. Of RE2's syntax only what PostgreSQL reads the same way is accepted (see portabilityProblem);
 * the repository still compiles each one in PostgreSQL before it is kept. Returns the reason a pattern is refused
 * as a string.
 */
export function parseExclusionPattern(input: string): ExclusionPattern | string {
  const text = input.trim();
  if (text.length === 0) return 'a pattern must not be empty';
  if (text.length > MAX_PATTERN_LENGTH) return `a pattern must be at most ${MAX_PATTERN_LENGTH} characters`;
  if (hasControlCharacters(text)) return 'a pattern must not contain control characters';
  if (text.startsWith('re:')) return parseRegex(text.slice(3));
  const name = text.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) {
    return `"${text}" is not a host name or a wildcard such as *.dev.example.com (a regular expression starts with re:)`;
  }
  if (!name.includes('*')) return { kind: 'host', pattern: name, regex: `^${escapeRegex(name)}$` };
  if (labels.slice(1).every((l) => l === '*')) return 'a wildcard must name at least one label that is not *';
  const parts = labels.map((label, i) => {
    if (label === '*') return i === 0 ? `${LABEL_CHARS}+(\\.${LABEL_CHARS}+)*` : `${LABEL_CHARS}+`;
    return label.split('*').map(escapeRegex).join(`${LABEL_CHARS}*`);
  });
  return { kind: 'wildcard', pattern: name, regex: `^${parts.join('\\.')}$` };
}

function parseRegex(source: string): ExclusionPattern | string {
  if (source.length === 0) return 'a regular expression must not be empty';
  try {
    RE2JS.compile(source);
  } catch (e) {
    return `not a regular expression this service matches in linear time (RE2 syntax): ${(e as Error).message}`;
  }
  const problem = portabilityProblem(source);
  if (problem) return `a regular expression ${problem}`;
  return { kind: 'regex', pattern: `re:${source}`, regex: source };
}
