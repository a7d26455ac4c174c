import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { type ImportSummary, ImportService } from '../import/import.service.js';
import { IMPORT_FORMATS, type ImportFormat, ImportFormatError } from '../import/scope-formats.js';
import { CliError, CliOutput } from './cli-output.js';
import { Progress } from './progress.js';

interface ImportFlags {
  format?: ImportFormat;
  platform?: string;
  prune?: boolean;
  dryRun?: boolean;
}

@SubCommand({
  name: 'import',
  arguments: '<fileOrUrl>',
  description: 'Add root domains from a scope list (bounty-targets, chaos or txt); idempotent',
})
export class DomainsImportCommand extends CommandRunner {
  constructor(
    private readonly imports: ImportService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([source]: string[], flags: ImportFlags): Promise<void> {
    if (!flags.format) throw new CliError(`--format is required (${IMPORT_FORMATS.join(', ')})`);
    const shown: { progress?: Progress } = {};
    try {
      const summary = await this.imports.run(
        source,
        { format: flags.format, platform: flags.platform, prune: flags.prune ?? false, dryRun: flags.dryRun ?? false },
        (done, total, what) => {
          shown.progress ??= new Progress('import', total);
          shown.progress.update(done, what);
        },
      );
      shown.progress?.stop();
      this.report(summary);
    } catch (e) {
      shown.progress?.stop();
      throw e instanceof ImportFormatError ? new CliError(`${source}: ${e.message}`) : e;
    }
  }

  private report(s: ImportSummary): void {
    if (s.dryRun) this.out.line('dry run: nothing was written');
    const programs = s.parsed.programs ? `${s.parsed.programs} programs, ` : '';
    this.out.line(
      `${s.source}: ${programs}${s.parsed.targets} targets → ${s.parsed.entries.length} root domains (${s.parsed.platforms.join(', ') || 'no platform'})`,
    );
    this.out.line(
      `added ${s.added.length}, kept ${s.kept}, disabled ${s.disabled.length}, under another platform ${s.elsewhere.length}`,
    );
    const reasons = Object.entries(s.parsed.skipped).sort(([a], [b]) => a.localeCompare(b));
    const skipped = reasons.reduce((n, [, c]) => n + (c ?? 0), 0);
    this.out.line(`skipped ${skipped} targets${skipped ? `: ${reasons.map(([r, c]) => `${r} ${c}`).join(', ')}` : ''}`);
    const outOfScope = s.parsed.outOfScope;
    if (outOfScope.targets > 0 || s.rules.removed > 0) {
      const unused = Object.entries(outOfScope.skipped).sort(([a], [b]) => a.localeCompare(b));
      this.out.line(
        `out of scope: ${outOfScope.targets} targets → ${s.parsed.exclusions.length} exclusion rules; ` +
          `rules added ${s.rules.added}, removed ${s.rules.removed}; hosts moved ${s.rules.moved}` +
          (unused.length ? `; no rule from ${unused.map(([r, c]) => `${r} ${c}`).join(', ')}` : ''),
      );
    }
    for (const d of s.disabled) this.out.line(`disabled ${d}`);
    for (const e of s.elsewhere) this.out.line(`left under ${e.platform}: ${e.domain}`);
  }

  @Option({ flags: '--format <format>', description: 'bounty-targets, chaos or txt' })
  parseFormat(value: string): ImportFormat {
    if (!(IMPORT_FORMATS as readonly string[]).includes(value))
      throw new CliError(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
    return value as ImportFormat;
  }

  @Option({
    flags: '--platform <slug>',
    description:
      'Platform of the domains (bounty-targets: else from the file name; txt: default self; chaos: only that platform)',
  })
  parsePlatform(value: string): string {
    return value;
  }

  @Option({ flags: '--prune', description: "Disable (never delete) the platform's domains that left scope" })
  parsePrune(): boolean {
    return true;
  }

  @Option({ flags: '--dry-run', description: 'Report what would change, change nothing' })
  parseDryRun(): boolean {
    return true;
  }
}
