import { Command, CommandRunner } from 'nest-commander';
import { Environment } from '../config/environment.js';
import { DomainsRepository } from '../domains/domains.repository.js';
import { rootDomainProblem } from '../common/validation/root-domain.js';
import { type ScanProgress, ScanRunner } from '../discovery/scan-runner.service.js';
import { newWorkerId } from '../common/worker-id.js';
import { ScanClaimsRepository } from '../discovery/scan-claims.repository.js';
import { CliError, CliOutput } from './cli-output.js';
import { Progress } from './progress.js';

/** Runs one scan of a tracked domain in the foreground (trigger cli), in short slices to report progress. */
@Command({ name: 'scan', arguments: '<domain>', description: 'Scan one tracked root domain now and print a summary' })
export class ScanCommand extends CommandRunner {
  constructor(
    private readonly env: Environment,
    private readonly domains: DomainsRepository,
    private readonly claims: ScanClaimsRepository,
    private readonly runner: ScanRunner,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([name]: string[]): Promise<void> {
    const problem = rootDomainProblem(name);
    if (problem) throw new CliError(`"${name}" ${problem}`);
    const domain = await this.domains.findByName(name);
    if (!domain) throw new CliError(`${name} is not tracked; add it with: domains add ${name} --platform SLUG`);
    const workerId = newWorkerId();
    const scan = await this.claims.startNow(domain.id, workerId, this.env.SCAN_LEASE_SECONDS);
    if (!scan) throw new CliError(`a scan of ${name} is already running`);

    const steps = this.env.SCAN_SOURCES.length + (this.env.RESOLVE === 'on' ? 1 : 0) + 1;
    const progress = new Progress(`scan ${name}`, steps);
    const started = Date.now();
    const stop = new AbortController();
    const interrupt = () => stop.abort();
    process.once('SIGINT', interrupt);
    try {
      for (;;) {
        const outcome = await this.runner.runSlice(scan, stop.signal, Date.now() + 2000);
        if (outcome.status === 'parked') {
          if (stop.signal.aborted) {
            await this.claims.park(scan.id, workerId);
            throw new CliError(`interrupted; the worker will finish scan ${scan.id}`);
          }
          scan.progress = outcome.progress;
          progress.update(this.stepOf(outcome.progress), describe(outcome.progress, this.env.SCAN_SOURCES));
          continue;
        }
        progress.update(steps, outcome.status);
        progress.stop();
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        if (outcome.status === 'error')
          throw new CliError(`scan of ${name} failed after ${seconds} s: ${outcome.error}`);
        this.out.line(
          `scan of ${name} succeeded in ${seconds} s: found ${outcome.found}, new ${outcome.new}, ` +
            `went inactive ${outcome.inactive}, active again ${outcome.reactivated}, dropped ${outcome.dropped}`,
        );
        return;
      }
    } finally {
      process.off('SIGINT', interrupt);
      progress.stop();
    }
  }

  private stepOf(p: ScanProgress): number {
    if (p.phase === 'discover') return p.source;
    return this.env.SCAN_SOURCES.length + (p.phase === 'commit' ? 1 : 0);
  }
}

function describe(p: ScanProgress, sources: readonly string[]): string {
  if (p.phase === 'discover') return sources[p.source] ? `source ${sources[p.source]}` : 'sources done';
  return p.phase === 'resolve' ? `checking liveness${p.after ? ` (at ${p.after})` : ''}` : 'recording';
}
