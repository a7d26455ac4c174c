import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { composeEnvironment, envVarDocs } from './env-var.decorator.js';
import { CtEnvironment } from './ct.env.js';
import { DatabaseEnvironment } from './database.env.js';
import { ExportEnvironment } from './export.env.js';
import { IntelEnvironment } from './intel.env.js';
import { LogsEnvironment } from './logs.env.js';
import { NotifyEnvironment } from './notify.env.js';
import { ScanEnvironment } from './scan.env.js';
import { ServerEnvironment } from './server.env.js';
import { StreamEnvironment } from './stream.env.js';
import { SyncEnvironment } from './sync.env.js';

export type { OnOff } from './env-transforms.js';
export { LOG_LEVELS, type LogLevel } from './logs.env.js';
export { SCAN_SOURCE_NAMES, type ScanSourceName } from './scan.env.js';

/**
 * Every environment variable the service reads, one wing per section of docs/operations/configuration.md (in its
 * order), as flat properties: `env.SCAN_CONCURRENCY`. Read once at start; a bad value stops the process with one
 * line naming the variable. The configuration page is checked against this class.
 */
export class Environment extends composeEnvironment(
  ServerEnvironment,
  LogsEnvironment,
  DatabaseEnvironment,
  StreamEnvironment,
  ExportEnvironment,
  ScanEnvironment,
  SyncEnvironment,
  IntelEnvironment,
  CtEnvironment,
  NotifyEnvironment,
) {}

export class ConfigError extends Error {}

/** Reads and validates the environment; throws ConfigError with one line naming the first bad variable. */
export function loadEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const docs = envVarDocs(Environment);
  const raw: Record<string, string> = {};
  for (const { name } of docs) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const config = plainToInstance(Environment, raw);
  const errors = validateSync(config, { forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length > 0) {
    const { property, constraints } = errors[0];
    const reason = Object.values(constraints ?? {}).at(-1) ?? 'is invalid';
    // Secrets are named, never echoed; so is any URL, which may carry user:password@ whatever the variable.
    const secret = docs.find((d) => d.name === property)?.secret === true || property.includes('URL');
    const shown = secret ? '' : `=${JSON.stringify(raw[property])}`;
    throw new ConfigError(`Invalid configuration: ${property}${shown}: ${reason}`);
  }
  if (config.DATABASE_REPLICA_URLS?.length && !config.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL (replicas of a PostgreSQL server)',
    );
  }
  if (config.HTTP === 'off' && config.WORKER === 'off') {
    throw new ConfigError('Invalid configuration: HTTP=off and WORKER=off leave the process nothing to do');
  }
  return config;
}
