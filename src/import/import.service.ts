import { Injectable } from '@nestjs/common';
import { readPathOrUrl } from '../common/http/bounded-fetch.js';
import { Environment } from '../config/environment.js';
import { type ImportResult, ImportRepository } from './import.repository.js';
import {
  type ImportFormat,
  ImportFormatError,
  type ParsedScope,
  isPlatform,
  parseBountyTargets,
  parseChaos,
  parseTxt,
  platformFromFileName,
} from './scope-formats.js';

export interface ImportOptions {
  format: ImportFormat;
  platform?: string;
  prune: boolean;
  dryRun: boolean;
}

export interface ImportSummary extends ImportResult {
  source: string;
  parsed: ParsedScope;
  dryRun: boolean;
}

const FETCH_TIMEOUT_MS = 120_000;

/** Root domains from the platforms' published scope lists, added idempotently; see docs/guide/scope.md, "Program sync". */
@Injectable()
export class ImportService {
  constructor(
    private readonly imports: ImportRepository,
    private readonly env: Environment,
  ) {}

  async run(
    source: string,
    options: ImportOptions,
    onStep: (done: number, total: number, what: string) => void = () => undefined,
  ): Promise<ImportSummary> {
    if (options.platform !== undefined && !isPlatform(options.platform)) {
      throw new ImportFormatError(
        `unknown platform "${options.platform}" (self, hackerone, bugcrowd, intigriti or yeswehack)`,
      );
    }
    onStep(0, 3, `reading ${source}`);
    const text = await this.read(source);
    onStep(1, 3, 'reducing targets to root domains');
    const parsed = this.parse(source, text, options);
    onStep(2, 3, `writing ${parsed.entries.length} root domains`);
    const prune = options.prune ? parsed.platforms : null;
    const exclusions = options.format === 'bounty-targets' ? parsed.exclusions : null;
    const result = await this.imports.apply(parsed.entries, exclusions, prune, options.dryRun);
    onStep(3, 3, options.dryRun ? 'dry run: nothing written' : 'done');
    return { ...result, source, parsed, dryRun: options.dryRun };
  }

  private parse(source: string, text: string, options: ImportOptions): ParsedScope {
    switch (options.format) {
      case 'bounty-targets': {
        const platform = options.platform ?? platformFromFileName(source);
        if (!platform) throw new ImportFormatError('cannot tell the platform from the file name; give --platform');
        return parseBountyTargets(text, platform);
      }
      case 'chaos':
        if (options.prune && !options.platform)
          throw new ImportFormatError('--prune with --format chaos needs --platform, the platform to prune');
        return parseChaos(text, options.platform ?? null);
      case 'txt':
        return parseTxt(text, options.platform ?? 'self');
    }
  }

  private read(source: string): Promise<string> {
    return readPathOrUrl(source, {
      maxMiB: this.env.FETCH_MAX_MB,
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    }).catch((e: Error) => {
      throw new ImportFormatError(e.message);
    });
  }
}
