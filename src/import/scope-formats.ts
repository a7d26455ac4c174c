import { RE2JS } from 're2js';
import { stripControlCharacters } from '../common/validation/control-characters.js';
import { PLATFORM_SLUGS } from '../platforms/platform-slugs.js';
import type { ExclusionPattern } from '../scope/exclusion-pattern.js';
import {
  type ExclusionReduction,
  type ExclusionSkipReason,
  type SkipReason,
  exactHostOf,
  reduceExclusion,
  reduceTarget,
  reduceValue,
} from './scope-target.js';
import { AppError, type ErrorCode } from '../common/errors/app-error.js';

export const IMPORT_FORMATS = ['bounty-targets', 'chaos', 'txt'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportEntry {
  domain: string;
  platform: string;
  program: string | null;
  handle: string | null;
}

/** An exclusion rule an out-of-scope entry makes for a root domain the same program lists in scope. */
export interface ImportExclusion extends ExclusionPattern {
  domain: string;
  platform: string;
}

export interface ParsedScope {
  entries: ImportEntry[];
  /** The rules the out-of-scope entries make (bounty-targets files only). */
  exclusions: ImportExclusion[];
  /** Out-of-scope entries read, and why those that make no rule make none. */
  outOfScope: { targets: number; skipped: Partial<Record<ExclusionSkipReason, number>> };
  /** Platforms the file speaks for: the ones --prune may disable domains of. */
  platforms: string[];
  skipped: Partial<Record<SkipReason, number>>;
  programs: number;
  targets: number;
}

/** A file that cannot be read as the format says; the message names the line or program. */
export class ImportFormatError extends AppError {
  constructor(message: string, code: ErrorCode = 'invalid_body') {
    super(code, message);
  }
}

type Json = Record<string, unknown>;

// Where each platform's file keeps a target's type and text, and the program's handle.
const FIELDS: Record<string, { type: string; value: string; handle: (p: Json) => unknown }> = {
  hackerone: { type: 'asset_type', value: 'asset_identifier', handle: (p) => p.handle },
  bugcrowd: {
    type: 'type',
    value: 'target',
    handle: (p) => (typeof p.url === 'string' ? withoutTrailingSlashes(p.url).split('/').pop() : null),
  },
  intigriti: {
    type: 'type',
    value: 'endpoint',
    handle: (p) => {
      const company = text(p.company_handle);
      const program = text(p.handle);
      return company && program ? `${company}/${program}` : program;
    },
  },
  yeswehack: { type: 'type', value: 'target', handle: (p) => p.id },
};

/** A URL without its trailing slashes, in one pass (`/\/+$/` retries from every slash of a run). */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

/** The platform a bounty-targets file name stands for: hackerone_data.json → hackerone. */
export function platformFromFileName(name: string): string | null {
  const base = name.split(/[/\\]/).pop()?.split('?')[0] ?? '';
  const m = /^(hackerone|bugcrowd|intigriti|yeswehack)(_data)?\.json$/i.exec(base);
  return m ? m[1].toLowerCase() : null;
}

/** The platform of a program from its page's URL (chaos list). */
export function platformFromUrl(url: unknown): string {
  if (typeof url !== 'string') return 'self';
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return 'self';
  }
  for (const slug of ['hackerone', 'bugcrowd', 'intigriti', 'yeswehack']) {
    if (host === `${slug}.com` || host.endsWith(`.${slug}.com`)) return slug;
  }
  return 'self';
}

class Collector {
  readonly entries = new Map<string, ImportEntry>();
  readonly skipped: Partial<Record<SkipReason, number>> = {};
  readonly exclusions = new Map<string, ImportExclusion>();
  readonly outOfScope: ParsedScope['outOfScope'] = { targets: 0, skipped: {} };
  targets = 0;

  /**
   * An out-of-scope entry of a program: its rules for the root domains the program lists in scope, unless one
   * would take out a host the program names in scope (the in-scope list wins).
   */
  exclude(platform: string, roots: Set<string>, inScope: string[], reduction: ExclusionReduction): void {
    this.outOfScope.targets++;
    let skip: ExclusionSkipReason | null = 'skip' in reduction ? reduction.skip : null;
    if ('rules' in reduction) {
      const kept = reduction.rules.filter((r) => roots.has(r.root));
      const safe = kept.filter((r) => {
        // On re2js, linear in the host: the pattern comes from the file, and a wildcard such as a*a*a*a*.example.com
        // would make a backtracking engine try every split of a long label.
        const matches = RE2JS.compile(r.pattern.regex);
        return !inScope.some((host) => matches.test(host));
      });
      for (const { root, pattern } of safe) {
        this.exclusions.set(`${root} ${pattern.pattern}`, { domain: root, platform, ...pattern });
      }
      if (safe.length === 0) skip = kept.length === 0 ? 'outside_program_scope' : 'names_in_scope_host';
    }
    if (skip) this.outOfScope.skipped[skip] = (this.outOfScope.skipped[skip] ?? 0) + 1;
  }

  parsed(platforms: string[], programs: number): ParsedScope {
    return {
      entries: [...this.entries.values()],
      exclusions: [...this.exclusions.values()],
      outOfScope: this.outOfScope,
      platforms,
      skipped: this.skipped,
      programs,
      targets: this.targets,
    };
  }

  add(entry: Omit<ImportEntry, 'domain'>, reduction: ReturnType<typeof reduceValue>): void {
    this.targets++;
    if ('skip' in reduction) {
      this.skipped[reduction.skip] = (this.skipped[reduction.skip] ?? 0) + 1;
      return;
    }
    for (const domain of reduction.roots) if (!this.entries.has(domain)) this.entries.set(domain, { domain, ...entry });
  }
}

/** A field's text, without the control characters a terminal would act on (names are printed by `domains list`). */
function text(v: unknown): string | null {
  const clean = typeof v === 'string' ? stripControlCharacters(v).trim() : '';
  return clean ? clean : typeof v === 'number' ? String(v) : null;
}

/**
 * Where the JSON breaks, never what it says there: V8's message quotes the text at an unexpected token, and the
 * file may be any file the operator can read (`domains import /etc/shadow --format chaos`).
 */
function parseJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (e) {
    const message = (e as Error).message;
    const position = /at position (\d+)/.exec(message);
    if (position) throw new ImportFormatError(`not valid JSON at ${lineAndColumn(source, Number(position[1]))}`);
    if (message.includes('end of JSON input')) throw new ImportFormatError('not valid JSON: it ends too early');
    throw new ImportFormatError('not valid JSON');
  }
}

function lineAndColumn(source: string, position: number): string {
  const before = source.slice(0, position);
  const line = before.split('\n').length;
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`;
}

/**
 * A program for an error message. Its name is quoted only once the file has shown itself to be a scope list
 * (an earlier program read well, this one has its target list, or the file has chaos's {programs: [...]}):
 * a JSON file of some other kind keeps its `name` fields to itself.
 */
function programName(p: Json, i: number, isScopeList: boolean): string {
  const named = isScopeList && typeof p.name === 'string';
  return `program ${i + 1}${named ? ` (${JSON.stringify((p.name as string).slice(0, 80))})` : ''}`;
}

/**
 * bounty-targets-data: an array of programs with targets.in_scope[], whose root domains are imported, and
 * targets.out_of_scope[], whose hosts become exclusion rules of those root domains (reduceExclusion).
 */
export function parseBountyTargets(source: string, platform: string): ParsedScope {
  const fields = FIELDS[platform];
  if (!fields)
    throw new ImportFormatError(
      `bounty-targets files exist for hackerone, bugcrowd, intigriti and yeswehack, not "${platform}"`,
    );
  const programs = parseJson(source);
  if (!Array.isArray(programs)) throw new ImportFormatError('a bounty-targets file is a JSON array of programs');
  const out = new Collector();
  programs.forEach((raw: unknown, i) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw new ImportFormatError(`${`program ${i + 1}`}: not an object`);
    const p = raw as Json;
    const targets = (p.targets as Json | undefined)?.in_scope;
    if (!Array.isArray(targets))
      throw new ImportFormatError(`${programName(p, i, i > 0)}: targets.in_scope is not a list`);
    const roots = new Set<string>();
    const inScope: string[] = [];
    for (const [j, target] of targets.entries()) {
      if (!target || typeof target !== 'object')
        throw new ImportFormatError(`${programName(p, i, true)}: in_scope target ${j + 1} is not an object`);
      const t = target as Json;
      const reduction = reduceTarget(text(t[fields.type]), t[fields.value]);
      out.add({ platform, program: text(p.name), handle: text(fields.handle(p)) }, reduction);
      if ('roots' in reduction) for (const root of reduction.roots) roots.add(root);
      const host = exactHostOf(t[fields.value]);
      if (host) inScope.push(host);
    }
    const excluded = (p.targets as Json).out_of_scope;
    for (const target of Array.isArray(excluded) ? excluded : []) {
      const t = (target && typeof target === 'object' ? target : {}) as Json;
      out.exclude(platform, roots, inScope, reduceExclusion(text(t[fields.type]), t[fields.value]));
    }
  });
  return out.parsed([platform], programs.length);
}

/** ProjectDiscovery's list: {programs: [{name, url, bounty, domains}]}; the platform comes from the url. */
export function parseChaos(source: string, only: string | null): ParsedScope {
  const doc = parseJson(source) as Json | null;
  const programs = doc && typeof doc === 'object' ? doc.programs : undefined;
  if (!Array.isArray(programs)) throw new ImportFormatError('a chaos file is a JSON object with a "programs" list');
  const out = new Collector();
  let counted = 0;
  programs.forEach((raw: unknown, i) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw new ImportFormatError(`program ${i + 1}: not an object`);
    const p = raw as Json;
    if (!Array.isArray(p.domains)) throw new ImportFormatError(`${programName(p, i, true)}: domains is not a list`);
    const platform = platformFromUrl(p.url);
    if (only && platform !== only) return;
    counted++;
    for (const domain of p.domains)
      out.add({ platform, program: text(p.name), handle: null }, reduceValue(String(domain)));
  });
  const platforms = only ? [only] : [...new Set([...out.entries.values()].map((e) => e.platform))];
  return out.parsed(platforms, counted);
}

/**
 * One domain (or host, wildcard or URL) per line; blank lines and lines starting with # are ignored, and a line that
 * is no domain is skipped. A bad line is named by its number, never quoted: pointed at a file that is no scope list,
 * quoting would print its secrets.
 */
export function parseTxt(source: string, platform: string): ParsedScope {
  const out = new Collector();
  let firstRefused: string | null = null;
  for (const [i, line] of source.split(/\r?\n/).entries()) {
    const value = line.trim();
    if (!value || value.startsWith('#')) continue;
    const reduction = reduceValue(value);
    // A line that is no domain is skipped and counted by its reason, as the other formats' targets are.
    if ('skip' in reduction) firstRefused ??= `line ${i + 1}: ${reduction.skip}`;
    out.add({ platform, program: null, handle: null }, reduction);
  }
  // A file none of whose lines is a domain is no list of domains (the wrong file, say): refused, never imported.
  if (out.entries.size === 0 && firstRefused) throw new ImportFormatError(`no line is a domain (${firstRefused})`);
  return out.parsed([platform], 0);
}

export function isPlatform(slug: string): boolean {
  return (PLATFORM_SLUGS as readonly string[]).includes(slug);
}
