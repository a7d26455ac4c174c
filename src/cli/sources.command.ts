import { Command, CommandRunner, Option } from 'nest-commander';
import { rootDomainProblem } from '../common/validation/root-domain.js';
import { SourceHealthService } from '../discovery/source-health.service.js';
import { asCliError, CliError, CliOutput } from './cli-output.js';

interface SourcesOptions {
  domain?: string;
  days?: string;
}

const orDash = (n: number | null) => (n === null ? '-' : String(n));

/** What each discovery source is worth over the last days: the same as GET /scans/sources. */
@Command({ name: 'sources', description: 'Each discovery source’s successes, failures, latency and hosts found' })
export class SourcesCommand extends CommandRunner {
  constructor(
    private readonly health: SourceHealthService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(_: string[], options: SourcesOptions = {}): Promise<void> {
    const days = options.days === undefined ? 30 : Number(options.days);
    if (!/^\d{1,3}$/.test(options.days ?? '30') || days < 1 || days > 365)
      throw new CliError('--days must be an integer from 1 to 365');
    if (options.domain !== undefined) {
      const problem = rootDomainProblem(options.domain);
      if (problem) throw new CliError(`"${options.domain}" ${problem}`);
    }
    const { data } = await this.health.report(days, options.domain).catch(asCliError);
    this.out.table(
      [
        'SOURCE',
        'CONFIGURED',
        'OK',
        'FAILED',
        'MS_MEDIAN',
        'MS_P95',
        'NAMES',
        'SEEN',
        'NEW',
        'FLOODING',
        'LAST_FAILURE',
      ],
      data.map((s) => [
        s.source,
        s.configured ? 'yes' : 'no',
        String(s.successes),
        String(s.failures),
        orDash(s.ms_median),
        orDash(s.ms_p95),
        String(s.names),
        String(s.seen),
        String(s.new),
        s.flooding ? 'yes' : 'no',
        s.last_failure === null ? '-' : `${s.last_failure_at} ${s.last_failure}`,
      ]),
    );
  }

  @Option({ flags: '--domain <domain>', description: 'Only the scans of this tracked root domain' })
  parseDomain(value: string): string {
    return value;
  }

  @Option({
    flags: '--days <n>',
    description: 'Scans that ended today (UTC) and the n - 1 days before (default 30, at most 365)',
  })
  parseDays(value: string): string {
    return value;
  }
}
