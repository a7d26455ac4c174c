import { spawn } from 'node:child_process';
import type { Environment } from '../../config/environment.js';
import { type DiscoverySource, type SliceBudget, type SourceSlice, SourceError } from './source.js';
import { stderrSummary } from './stderr-summary.js';

const MAX_OUTPUT = 256 * 1024 * 1024;
// What any program needs to find its tools and speak the locale; the rest of ours (DATABASE_URL with its
// password, SMTP and webhook secrets …) is not the enumerator's business.
const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL'];

function commandEnvironment(names: readonly string[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of [...PASSED_ENV, ...names]) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/**
 * An external enumerator (subfinder, amass …): SCAN_COMMAND split on spaces, {domain} replaced in each
 * argument, run without a shell so the domain can never be read as shell syntax, in an environment of
 * PASSED_ENV and SCAN_COMMAND_ENV only. One host per line on stdout.
 */
export class CommandSource implements DiscoverySource {
  readonly name = 'command';

  constructor(private readonly env: Environment) {}

  run(domain: string, _position: unknown, budget: SliceBudget): Promise<SourceSlice> {
    const template = this.env.SCAN_COMMAND?.trim();
    if (!template) return Promise.reject(new SourceError('command: SCAN_COMMAND is not set'));
    const [program, ...args] = template.split(/\s+/).map((part) => part.replaceAll('{domain}', domain));
    return new Promise((resolve, reject) => {
      const child = spawn(program, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: false,
        env: commandEnvironment(this.env.SCAN_COMMAND_ENV ?? []),
      });
      let stdout = '';
      let stderr = '';
      let size = 0;
      const kill = () => child.kill('SIGKILL');
      const timer = setTimeout(kill, this.env.SCAN_COMMAND_TIMEOUT_SECONDS * 1000);
      budget.signal.addEventListener('abort', kill);
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_OUTPUT) kill();
        else stdout += chunk.toString('utf8');
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new SourceError(`command: cannot run ${program}: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (signal)
          return reject(
            new SourceError(`command: ${program} was stopped (${signal}): time limit or output limit reached`),
          );
        if (code !== 0) {
          const summary = stderrSummary(stderr);
          return reject(new SourceError(`command: ${program} exited with ${code}${summary ? `: ${summary}` : ''}`));
        }
        resolve({ names: stdout.split(/\r?\n/), next: null });
      });
    });
  }
}
