import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { CommandFactory } from 'nest-commander';
import { CliError } from './cli-output.js';
import { escapeControlCharacters } from '../common/validation/control-characters.js';
import { CliModule } from './cli.module.js';
import { ConfigError, loadEnvironment } from '../config/environment.js';
import { openDatabase } from '../database/database.js';
import { EmbeddedDatabaseError } from '../database/embedded-database.js';

/** One clear line on stderr and a non-zero exit; no stack trace for an operator's mistake. */
function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  const known = error instanceof CliError || error instanceof ConfigError || error instanceof EmbeddedDatabaseError;
  // The message may quote what the operator or a file gave: escaped, as everything the CLI prints.
  process.stderr.write(`error: ${escapeControlCharacters(known ? message : `unexpected failure: ${message}`)}\n`);
  process.exit(1);
}

/**
 * The release, as package.json names it: the nearest package.json above this module, which is built to
 * dist/src/cli/main.js and bundled into dist/cli.js (scripts/bundle-cli.mjs).
 */
function release(): string {
  for (let dir = new URL('..', import.meta.url); ; dir = new URL('../..', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dir.pathname === '/') return 'unknown';
  }
}

/**
 * Help and the version need no database: `--help`, `-h`, `--version`, `-V` or `help` anywhere a command is named,
 * or no command at all. Opening one would create a database under DATA_DIR on a fresh machine just to print them.
 */
function asksForHelp(args: string[]): boolean {
  return (
    args.length === 0 || args[0] === 'help' || args.some((arg) => ['--help', '-h', '--version', '-V'].includes(arg))
  );
}

async function main(): Promise<void> {
  const env = loadEnvironment();
  // Attaches to a running service's embedded database rather than opening its directory a second time.
  const database = asksForHelp(process.argv.slice(2))
    ? { target: null, close: async () => {} }
    : await openDatabase(env, 'attach');
  let failure: unknown = null;
  try {
    const app = await CommandFactory.createWithoutRunning(CliModule.forRoot(env, database.target), {
      logger: ['fatal', 'error'],
      abortOnError: false,
      cliName: 'subdomain-monitor',
      version: release(),
      errorHandler: (error) => {
        // commander's own exits (help, version) are not failures
        const code = (error as { exitCode?: number }).exitCode ?? 1;
        if (code === 0) process.exit(0);
        failure = new CliError(error.message.replace(/^error: /, ''));
      },
      serviceErrorHandler: (error) => {
        failure = error;
      },
    });
    await CommandFactory.runApplication(app);
    await app.close();
  } catch (error) {
    failure = error;
  } finally {
    await database.close();
  }
  if (failure) fail(failure);
}

main().catch(fail);
