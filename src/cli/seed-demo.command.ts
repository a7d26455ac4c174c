import { Command, CommandRunner, Option } from 'nest-commander';
import { DemoDataService, SeedRefused } from '../demo/demo-data.service.js';
import { CliError, CliOutput } from './cli-output.js';
import { Progress } from './progress.js';

interface SeedFlags {
  domains?: number;
  hosts?: number;
  days?: number;
  seed?: string;
}

const positive = (flag: string, max: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new CliError(`${flag} must be an integer from 1 to ${max}`);
  return Number(value);
};

@Command({
  name: 'seed-demo',
  description: 'Fill an empty database with a realistic synthetic data set (the same seed gives the same data)',
})
export class SeedDemoCommand extends CommandRunner {
  constructor(
    private readonly demo: DemoDataService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(_: string[], flags: SeedFlags): Promise<void> {
    if (!flags.domains || !flags.hosts) throw new CliError('--domains and --hosts are required');
    const shown: { progress?: Progress } = {};
    try {
      const report = await this.demo.seed(
        { domains: flags.domains, hosts: flags.hosts, days: flags.days ?? 30, seed: flags.seed ?? 'demo' },
        (done, total, what) => {
          shown.progress ??= new Progress('seed-demo', total);
          shown.progress.update(done, what);
        },
      );
      shown.progress?.stop();
      this.out.line(`seeded ${report.domains} domains and ${report.hosts} hosts in ${report.seconds.toFixed(1)} s`);
    } catch (e) {
      throw e instanceof SeedRefused ? new CliError(e.message) : e;
    }
  }

  @Option({ flags: '--domains <n>', description: 'Root domains to create' })
  parseDomains(value: string): number {
    return positive('--domains', 1_000_000)(value);
  }

  @Option({ flags: '--hosts <n>', description: 'Hosts to create' })
  parseHosts(value: string): number {
    return positive('--hosts', 100_000_000)(value);
  }

  @Option({ flags: '--days <n>', description: 'Days the first_seen_at times spread over (default 30)' })
  parseDays(value: string): number {
    return positive('--days', 3650)(value);
  }

  @Option({ flags: '--seed <text>', description: 'Seed of the generator (default "demo")' })
  parseSeed(value: string): string {
    return value;
  }
}
