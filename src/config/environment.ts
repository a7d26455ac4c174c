import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { EnvVar, envVarDocs } from './env-var.decorator.js';

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type OnOff = 'on' | 'off';

/**
 * Every environment variable the service reads. Read once at start; a bad value stops the process
 * with one line naming the variable. The README's configuration table is checked against this class.
 */
export class Environment {
  @EnvVar('TCP port the HTTP API listens on.', '3000')
  @Transform(toInt)
  @Min(0)
  @Max(65535)
  @IsInt()
  PORT = 3000;

  @EnvVar('Interface the HTTP API binds to (0.0.0.0 to listen on every interface).', '127.0.0.1')
  @IsString()
  @MinLength(1)
  HOST = '127.0.0.1';

  @EnvVar(
    'PostgreSQL connection URL (postgres://user:pass@host:5432/db). Unset: an embedded PostgreSQL (PGlite) stored in DATA_DIR.',
  )
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @EnvVar('Directory of the embedded database, used when DATABASE_URL is unset.', './data')
  @IsString()
  @MinLength(1)
  DATA_DIR = './data';

  @EnvVar('Connections in the pool to DATABASE_URL (the embedded database always uses 1).', '10')
  @Transform(toInt)
  @Min(1)
  @Max(200)
  @IsInt()
  DATABASE_POOL_SIZE = 10;

  @EnvVar('Milliseconds a query may run before it is cancelled and answered with 500 query_failed.', '15000')
  @Transform(toInt)
  @Min(100)
  @Max(3_600_000)
  @IsInt()
  QUERY_TIMEOUT_MS = 15_000;

  @EnvVar('Log verbosity: fatal, error, warn, info, debug or trace.', 'info')
  @Transform(toLower)
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  @EnvVar('Run the scheduled scan worker in this process: on or off (off for API-only processes).', 'on')
  @Transform(toLower)
  @IsIn(['on', 'off'])
  WORKER: OnOff = 'on';

  @EnvVar('Serve Swagger UI at /docs: on or off (the OpenAPI document is always at /api/v1/openapi.json).', 'on')
  @Transform(toLower)
  @IsIn(['on', 'off'])
  DOCS: OnOff = 'on';

  @EnvVar('Hours between scheduled scans of an enabled domain.', '24')
  @Transform(toInt)
  @Min(1)
  @Max(8760)
  @IsInt()
  SCAN_INTERVAL_HOURS = 24;

  @EnvVar(
    'Public base URL of the service, used in the OpenAPI document and sign-in links.',
    '(derived from HOST and PORT)',
  )
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'PUBLIC_URL must be an http:// or https:// URL' })
  @MaxLength(2048)
  PUBLIC_URL?: string;
}

export class ConfigError extends Error {}

/** Reads and validates the environment; throws ConfigError with one line naming the first bad variable. */
export function loadEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const names = envVarDocs(Environment).map((d) => d.name);
  const raw: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const config = plainToInstance(Environment, raw);
  const errors = validateSync(config, { forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length > 0) {
    const first = errors[0];
    const reason = Object.values(first.constraints ?? {}).at(-1) ?? 'is invalid';
    // Values that may carry credentials are named, never echoed.
    const shown = /URL|TOKEN|SECRET|PASSWORD/.test(first.property) ? '' : `=${JSON.stringify(raw[first.property])}`;
    throw new ConfigError(`Invalid configuration: ${first.property}${shown}: ${reason}`);
  }
  return config;
}
