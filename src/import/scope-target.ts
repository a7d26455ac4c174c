import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse } from 'tldts';
import { PSL_OPTIONS, rootDomainProblem } from '../common/validation/root-domain.js';
import { type ExclusionPattern, parseExclusionPattern } from '../scope/exclusion-pattern.js';

export type SkipReason =
  | 'mobile_app'
  | 'ip_address'
  | 'source_code'
  | 'not_web'
  | 'app_store_listing'
  | 'third_party_document'
  | 'free_text'
  | 'no_registrable_domain';

export type Reduction = { roots: string[] } | { skip: SkipReason };

const MOBILE_TYPE = /android|ios|apple_store|google_play|apk|ipa|testflight|windows_app_store/i;
const IP_TYPE = /^(ip_?address|iprange|ip_range|cidr|network)$/i;
const CODE_TYPE = /source_?code|open-source|repository/i;
const DEVICE_TYPE =
  /^(hardware|iot|device|executable|downloadable_executables|desktop|smart_contract|ai_model|binary)$/i;

// Hosts whose URLs name a listing or a repository on someone else's site, never the program's own domain.
const MOBILE_STORES =
  /^(play\.google\.com|apps\.apple\.com|itunes\.apple\.com|appgallery\.huawei\.com|apps\.microsoft\.com|www\.microsoft\.com\/store)$/;
const LISTING_HOSTS =
  /^(marketplace\.atlassian\.com|chrome\.google\.com|chromewebstore\.google\.com|microsoftedge\.microsoft\.com|apps\.microsoft\.com|addons\.mozilla\.org|marketplace\.visualstudio\.com|www\.npmjs\.com|pypi\.org)$/;
const DOCUMENT_HOSTS = /^(docs\.google\.com|drive\.google\.com|sites\.google\.com|onedrive\.live\.com|1drv\.ms)$/;
const CODE_HOSTS =
  /^(github\.com|gist\.github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|sourceforge\.net|gitlab\.[a-z0-9.-]+)$/;

/**
 * Reduces one in-scope target of a scope list to the registrable root domains it names (with the Public
 * Suffix List), or says why it is skipped. `type` is the platform's target type when it has one.
 */
export function reduceTarget(type: string | null | undefined, value: unknown): Reduction {
  if (typeof value !== 'string' || value.trim() === '') return { skip: 'free_text' };
  const typed = typeSkip(type);
  return typed ? { skip: typed } : reduceValue(value);
}

/** A target's text tidied, and the host it names; or why it names none. */
function readTarget(raw: string): { text: string; host: string } | { skip: SkipReason } {
  let text = tidy(raw);
  // "api.example.com (API endpoints)": a host followed by a note in parentheses
  const noted = /^(\S+)\s+\(.*\)$/.exec(text);
  if (noted) text = noted[1];
  if (/\s/.test(text)) return isIpOrRange(text) ? { skip: 'ip_address' } : { skip: 'free_text' };
  const host = hostOf(text);
  if (host === null || alternativesOf(host) > MAX_ALTERNATIVES) return { skip: 'free_text' };
  if (isIpOrRange(host)) return { skip: 'ip_address' };
  return { text, host };
}

/** A target's text, whatever its type: a host, a wildcard, a URL, or text that names none. */
export function reduceValue(raw: string): Reduction {
  const read = readTarget(raw);
  if ('skip' in read) return read;
  const { text, host } = read;
  const path = text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').slice(host.length);
  if (MOBILE_STORES.test(host)) return { skip: 'mobile_app' };
  if (LISTING_HOSTS.test(host) || (host === 'www.microsoft.com' && /\/(p|store)\//.test(path)))
    return { skip: 'app_store_listing' };
  if (DOCUMENT_HOSTS.test(host)) return { skip: 'third_party_document' };
  if (CODE_HOSTS.test(host) && /^\/[^/]+/.test(path)) return { skip: 'source_code' };

  const roots = new Set<string>();
  for (const candidate of expandAlternations(host)) {
    const ascii = domainToASCII(stripWildcards(candidate));
    const root = ascii ? parse(ascii, PSL_OPTIONS).domain : null;
    if (root && rootDomainProblem(root) === null) roots.add(root);
  }
  return roots.size > 0 ? { roots: [...roots] } : { skip: 'no_registrable_domain' };
}

/**
 * Smooths what people type into scope lists: stray trailing commas and asterisks, "*. example.com",
 * placeholders for the hunter's own name or a number ("<bugcrowd-name>", "###", "[it | fr]") which stand
 * for any label, and an unbalanced closing parenthesis. Every step is one pass over the text: a regular expression
 * anchored only at the end (`[,;]+$`) or a bracket never closed would be retried from every position.
 */
function tidy(raw: string): string {
  let text = withoutTrailing(raw.trim(), ',;').replace(/\*\.\s+/g, '*.');
  // "wss://host/v2 *": an asterisk after whitespace, at the end.
  if (text.endsWith('*') && /\s/.test(text[text.length - 2] ?? '')) text = text.slice(0, -1).trimEnd();
  text = text.replace(/(\.[a-z]{2,})\*$/i, '$1');
  text = bracketsAsWildcards(text.replace(/<[^<>\s]*>/g, '*').replace(/#{2,}/g, '*'));
  let unbalanced = count(text, ')') - count(text, '(');
  let end = text.length;
  while (unbalanced-- > 0 && text[end - 1] === ')') end--;
  return bracketsAsWildcards(text.slice(0, end));
}

/** `text` without the run of `chars` it ends with. */
function withoutTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end--;
  return text.slice(0, end);
}

const count = (text: string, char: string) => text.split(char).length - 1;

/** Each "[…]" (from a "[" to the next "]") as "*"; a "[" never closed stays as it is. */
function bracketsAsWildcards(text: string): string {
  let out = '';
  let at = 0;
  for (let open = text.indexOf('['); open !== -1; open = text.indexOf('[', at)) {
    const close = text.indexOf(']', open + 1);
    if (close === -1) break;
    out += `${text.slice(at, open)}*`;
    at = close + 1;
  }
  return out + text.slice(at);
}

/** The host part of a URL or bare host: scheme, credentials, path, query and port removed, lower case. */
function hostOf(text: string): string | null {
  const rest = text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]*@/, '');
  const host = rest
    .split(/[/?#\\]/)[0]
    .replace(/:\d*$/, '')
    .replace(/\.$/, '')
    .toLowerCase();
  // Host characters (with "(", "|", ")" of an alternation, and "." inside one), and a dot with one on each side.
  // Written as one class and a search, not as ([…]+)(\.[…]+)+: a class holding "." makes that backtrack
  // exponentially on a long dotted run that fails at its end.
  return /^[a-z0-9*_().|\u00a0-\uffff-]+$/i.test(host) && host.slice(1, -1).includes('.') ? host : null;
}

/** Names an alternation such as "example.(com|de)" stands for: the product of its groups' choices. */
function alternativesOf(host: string): number {
  let product = 1;
  for (const m of host.matchAll(/\(([^()]+)\)/g)) product *= m[1].split('|').length;
  return product;
}

/** Names one target may stand for at most: a chain of alternations multiplies them. */
const MAX_ALTERNATIVES = 256;

/** "*.example.(com|de)" → ["*.example.com", "*.example.de"]. */
function expandAlternations(host: string): string[] {
  const m = /\(([^()]+)\)/.exec(host);
  if (!m) return [host];
  return m[1]
    .split('|')
    .flatMap((alt) => expandAlternations(host.slice(0, m.index) + alt + host.slice(m.index + m[0].length)));
}

/**
 * Drops every label up to the last one holding a wildcard: "*.api.example.com", "api-*.example.com" → the
 * rest. Text after the wildcard in that label stays: "*tidalhi.fi" → "tidalhi.fi", "api-*exoscale.com" → "exoscale.com".
 */
function stripWildcards(host: string): string {
  const labels = host.split('.');
  const last = labels.map((l) => l.includes('*')).lastIndexOf(true);
  if (last === -1) return host;
  const after = labels[last].slice(labels[last].lastIndexOf('*') + 1).replace(/^[-_]+/, '');
  return [...(after ? [after] : []), ...labels.slice(last + 1)].join('.');
}

function isIpOrRange(text: string): boolean {
  const bare = text.replace(/^(ipv4|ipv6):\s*/i, '').replace(/^\[|\]$/g, '');
  const [address, bits] = bare.split('/');
  return isIP(address) !== 0 && (bits === undefined || /^\d{1,3}$/.test(bits))
    ? true
    : /^\d{1,3}(\.\d{1,3}){3}-\d{1,3}(\.\d{1,3}){3}$/.test(bare);
}

/** Why an out-of-scope entry makes no exclusion rule. */
export type ExclusionSkipReason =
  | SkipReason
  | 'part_of_a_host'
  | 'whole_root_domain'
  | 'not_a_pattern'
  | 'outside_program_scope'
  | 'names_in_scope_host';

export type ExclusionReduction =
  { rules: { root: string; pattern: ExclusionPattern }[] } | { skip: ExclusionSkipReason };

/** The reason a target type names nothing on the web, or null. */
function typeSkip(type: string | null | undefined): SkipReason | null {
  const t = (type ?? '').trim();
  if (MOBILE_TYPE.test(t) && !/^mobile-application$/i.test(t)) return 'mobile_app';
  if (IP_TYPE.test(t)) return 'ip_address';
  if (CODE_TYPE.test(t)) return 'source_code';
  if (DEVICE_TYPE.test(t)) return 'not_web';
  return null;
}

/**
 * Reduces one out-of-scope target of a scope list to exclusion rules: the hosts or wildcards it names, each with
 * the root domain it belongs to, or the reason it makes none. Only whole hosts become rules: a path or a port
 * (`demorgen.be/login`) is part of a host, and a wildcard over a whole root domain (`*.trustwallet.com`) or the
 * root itself would hide every host of a domain the same program lists in scope. Free text ("Any staging
 * environment") is skipped, never guessed at.
 */
export function reduceExclusion(type: string | null | undefined, value: unknown): ExclusionReduction {
  if (typeof value !== 'string' || value.trim() === '') return { skip: 'free_text' };
  const typed = typeSkip(type);
  if (typed) return { skip: typed };
  const read = readTarget(value);
  if ('skip' in read) return read;
  const { text, host } = read;
  const rest = text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]*@/, '');
  const after = rest.slice(rest.split(/[/?#\\]/)[0].length);
  if (/:\d/.test(rest.split(/[/?#\\]/)[0]) || !/^\/*$/.test(after)) return { skip: 'part_of_a_host' };

  const rules: { root: string; pattern: ExclusionPattern }[] = [];
  let skip: ExclusionSkipReason = 'no_registrable_domain';
  for (const candidate of expandAlternations(host)) {
    const ascii = domainToASCII(candidate);
    const stripped = ascii ? domainToASCII(stripWildcards(ascii)) : '';
    const root = stripped ? parse(stripped, PSL_OPTIONS).domain : null;
    if (!ascii || !root || rootDomainProblem(root) !== null) continue;
    if (ascii === root || ascii === `*.${root}`) {
      skip = 'whole_root_domain';
      continue;
    }
    const pattern = parseExclusionPattern(ascii);
    if (typeof pattern === 'string') {
      skip = 'not_a_pattern';
      continue;
    }
    rules.push({ root, pattern });
  }
  return rules.length > 0 ? { rules } : { skip };
}

/** The exact host an in-scope target names (no wildcard, no alternation), lower case, or null. */
export function exactHostOf(value: unknown): string | null {
  const read = typeof value === 'string' ? readTarget(value) : null;
  return read && 'host' in read && !/[*()|]/.test(read.host) ? domainToASCII(read.host) || null : null;
}
