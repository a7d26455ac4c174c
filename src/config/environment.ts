import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  validateSync,
} from 'class-validator';
import { CronTime } from 'cron';
import { EnvVar, envVarDocs } from './env-var.decorator.js';
import { OnOffVar, toCaseList, toInt, toList, toLower } from './env-transforms.js';
import { ProbeEnvironment } from './probe.environment.js';

function isCronExpression(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\S+(\s+\S+){4,5}$/.test(value.trim())) return false;
  try {
    new CronTime(value);
    return true;
  } catch {
    return false;
  }
}

export const SCAN_SOURCE_NAMES = ['crtsh', 'dns', 'command'] as const;
export type ScanSourceName = (typeof SCAN_SOURCE_NAMES)[number];

export type { OnOff } from './env-transforms.js';
import type { OnOff } from './env-transforms.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every environment variable the service reads. Read once at start; a bad value stops the process
 * with one line naming the variable. The README's configuration table is checked against this class.
 */
export class Environment extends ProbeEnvironment {
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

  @EnvVar(
    'Comma list of read-replica URLs (hot standbys of DATABASE_URL). Read endpoints and exports query a replica; writes, keys and the worker stay on DATABASE_URL.',
  )
  @Transform(toList)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    each: true,
    message: 'DATABASE_REPLICA_URLS must be a comma list of postgres:// or postgresql:// URLs',
  })
  DATABASE_REPLICA_URLS?: string[];

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

  @OnOffVar(
    'Prepare the statements every request runs once on each connection, instead of parsing them on every call (a PostgreSQL server only). Turn off behind a pooler that does not keep prepared statements, such as PgBouncer in transaction mode before 1.21.',
    'on',
  )
  DATABASE_PREPARED_STATEMENTS: OnOff = 'on';

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

  @OnOffVar(
    'Serve the API in this process: on or off (off for worker-only processes, which still answer /health/live and /health/ready on PORT).',
    'on',
  )
  HTTP: OnOff = 'on';

  @OnOffVar('Run the scheduled scan worker in this process: on or off (off for API-only processes).', 'on')
  WORKER: OnOff = 'on';

  @OnOffVar('Serve Swagger UI at /docs: on or off (the OpenAPI document is always at /api/v1/openapi.json).', 'on')
  DOCS: OnOff = 'on';

  @OnOffVar('Serve Prometheus metrics at /metrics (outside the API prefix): on or off.', 'off')
  METRICS: OnOff = 'off';

  @EnvVar(
    'When set, /metrics answers only requests with Authorization: Bearer <METRICS_TOKEN> (16 characters or more).',
  )
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;

  @EnvVar(
    'Browser origins allowed to call the API cross-origin, a comma list like https://app.example.com, or * for any. Unset: CORS is off.',
  )
  @Transform(toList)
  @IsOptional()
  @Matches(/^(\*|https?:\/\/[^/\s]+)$/, {
    each: true,
    message: 'CORS_ORIGINS must be * or a comma list of origins like https://app.example.com',
  })
  CORS_ORIGINS?: string[];

  @EnvVar(
    'Reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: off, a number of proxy hops in front of the service (1 for one proxy), or a comma list of proxy addresses or CIDRs. Set it behind a TLS-terminating proxy, so the account page marks its cookies Secure and slows sign-ins per real client address.',
    'off',
  )
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @Matches(/^(off|[1-9]|([0-9a-f.:]+(\/\d{1,3})?)(\s*,\s*[0-9a-f.:]+(\/\d{1,3})?)*)$/, {
    message: 'TRUST_PROXY must be off, a number of hops from 1 to 9, or a comma list of proxy addresses or CIDRs',
  })
  TRUST_PROXY = 'off';

  @EnvVar(
    'Seconds a stopping process (SIGTERM) waits for in-flight requests, streams, webhook deliveries and scan slices before it closes them.',
    '25',
  )
  @Transform(toInt)
  @Min(0)
  @Max(3600)
  @IsInt()
  SHUTDOWN_TIMEOUT = 25;

  @EnvVar('Seconds between heartbeat comments on an idle /subdomains/stream connection.', '15')
  @Transform(toInt)
  @Min(1)
  @Max(3600)
  @IsInt()
  STREAM_HEARTBEAT_SECONDS = 15;

  @EnvVar(
    "Seconds between a /subdomains/stream connection's own looks for new hosts; a scan's signal (LISTEN/NOTIFY) wakes it sooner.",
    '5',
  )
  @Transform(toInt)
  @Min(1)
  @Max(3600)
  @IsInt()
  STREAM_POLL_SECONDS = 5;

  @EnvVar(
    "Seconds between a process's own looks at the data version, besides the NOTIFY that tells it of each write at once (a notice is lost while its LISTEN connection is down, and a CLI attached to the embedded database sends none to the service).",
    '2',
  )
  @Transform(toInt)
  @Min(1)
  @Max(60)
  @IsInt()
  DATA_VERSION_POLL_SECONDS = 2;

  @EnvVar(
    'Megabytes of answers a process keeps per data version: aggregates (/stats, /platforms, /scans/status) and the ETags that answer If-None-Match without a query.',
    '32',
  )
  @Transform(toInt)
  @Min(0)
  @Max(4096)
  @IsInt()
  RESPONSE_CACHE_MB = 32;

  @EnvVar(
    'Most /subdomains/stream connections one process serves at once; more are answered 503 with Retry-After.',
    '1000',
  )
  @Transform(toInt)
  @Min(1)
  @Max(100_000)
  @IsInt()
  STREAM_MAX_CLIENTS = 1000;

  @EnvVar(
    'Most /subdomains/stream connections one API key holds open at once, per process; more are answered 503.',
    '3',
  )
  @Transform(toInt)
  @Min(1)
  @Max(100_000)
  @IsInt()
  STREAM_MAX_PER_KEY = 3;

  @EnvVar(
    'Most exports (GET /export) one process streams at once; on a PostgreSQL server at most DATABASE_POOL_SIZE − 2, on the embedded database at most 2, so key checks and small reads always find a connection.',
    '4',
  )
  @Transform(toInt)
  @Min(1)
  @Max(100)
  @IsInt()
  EXPORT_MAX_CONCURRENT = 4;

  @EnvVar(
    'Seconds a further export waits for one to end before it is answered 503 service_unavailable with Retry-After.',
    '5',
  )
  @Transform(toInt)
  @Min(0)
  @Max(60)
  @IsInt()
  EXPORT_WAIT_SECONDS = 5;

  @EnvVar('Seconds an export waits for its client to take data before it is aborted and its slot freed.', '60')
  @Transform(toInt)
  @Min(1)
  @Max(3600)
  @IsInt()
  EXPORT_IDLE_SECONDS = 60;

  @EnvVar(
    'Seconds a client has to send a whole request, headers and body; a slower one is answered 408 request_timeout and disconnected.',
    '30',
  )
  @Transform(toInt)
  @Min(1)
  @Max(3600)
  @IsInt()
  REQUEST_TIMEOUT_SECONDS = 30;

  @EnvVar('Seconds an idle keep-alive connection stays open for its next request.', '72')
  @Transform(toInt)
  @Min(1)
  @Max(3600)
  @IsInt()
  KEEP_ALIVE_TIMEOUT_SECONDS = 72;

  @EnvVar(
    'Most open HTTP connections one process accepts (streams included); further connections are closed at once.',
    '4096',
  )
  @Transform(toInt)
  @Min(16)
  @Max(1_000_000)
  @IsInt()
  HTTP_MAX_CONNECTIONS = 4096;

  @EnvVar('Seconds a webhook endpoint has to answer a delivery before the attempt counts as failed.', '10')
  @Transform(toInt)
  @Min(1)
  @Max(300)
  @IsInt()
  WEBHOOK_TIMEOUT_SECONDS = 10;

  @EnvVar('Attempts at a webhook delivery before it is given up (the waits between them grow fourfold).', '6')
  @Transform(toInt)
  @Min(1)
  @Max(20)
  @IsInt()
  WEBHOOK_MAX_ATTEMPTS = 6;

  @EnvVar('Seconds before the second attempt at a failed webhook delivery; each later wait is four times longer.', '30')
  @Transform(toInt)
  @Min(1)
  @Max(86_400)
  @IsInt()
  WEBHOOK_RETRY_SECONDS = 30;

  @OnOffVar(
    'Let webhooks reach loopback, private, link-local and other special-use addresses: on or off. Off refuses such a ' +
      'URL when it is added, and again at each delivery (a name can resolve elsewhere by then).',
    'off',
  )
  WEBHOOK_ALLOW_PRIVATE: OnOff = 'off';

  @EnvVar(
    'Seconds a digest webhook waits after its window ends before it reads the window, so that writes of ' +
      'transactions still open as it ended are in it.',
    '30',
  )
  @Transform(toInt)
  @Min(0)
  @Max(3600)
  @IsInt()
  WEBHOOK_DIGEST_LAG_SECONDS = 30;

  @EnvVar(
    'SMTP server email webhooks are sent through, smtp://user:password@host:587 (STARTTLS when offered) or ' +
      'smtps://…:465; unset: no email webhooks.',
    '(unset)',
  )
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  @IsOptional()
  SMTP_URL?: string;

  @EnvVar('Sender address of email webhooks, such as "Subdomain Monitor <monitor@example.com>".', '(unset)')
  @Matches(/^[^\r\n]*[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>?$/, { message: 'SMTP_FROM must be an email address' })
  @IsOptional()
  SMTP_FROM?: string;

  @EnvVar('Hours between scheduled scans of an enabled domain.', '24')
  @Transform(toInt)
  @Min(1)
  @Max(8760)
  @IsInt()
  SCAN_INTERVAL_HOURS = 24;

  @EnvVar('Discovery sources, a comma list of crtsh, dns and command.', 'crtsh')
  @Transform(toList)
  @ArrayNotEmpty({ message: 'SCAN_SOURCES must name at least one source' })
  @IsIn(SCAN_SOURCE_NAMES, { each: true, message: 'SCAN_SOURCES must be a comma list of crtsh, dns and command' })
  SCAN_SOURCES: ScanSourceName[] = ['crtsh'];

  @EnvVar('Base URL of the certificate-transparency search (crt.sh JSON format).', 'https://crt.sh')
  @Matches(/^https?:\/\/\S+$/, { message: 'CRTSH_URL must be an http:// or https:// URL' })
  CRTSH_URL = 'https://crt.sh';

  @EnvVar('Seconds one certificate-transparency request may take.', '60')
  @Transform(toInt)
  @Min(1)
  @Max(600)
  @IsInt()
  CRTSH_TIMEOUT_SECONDS = 60;

  @EnvVar(
    'Largest body, in MiB, read from a fetched scope list (domains import URL, SYNC_SOURCES) or a certificate-transparency answer; counted as it arrives.',
    '256',
  )
  @Transform(toInt)
  @Min(1)
  @Max(4096)
  @IsInt()
  FETCH_MAX_MB = 256;

  @EnvVar('Attempts per source request before the scan fails (with back-off between them).', '3')
  @Transform(toInt)
  @Min(1)
  @Max(10)
  @IsInt()
  SOURCE_ATTEMPTS = 3;

  @EnvVar('Word list file for the dns source, one label per line.', '(a built-in list of common labels)')
  @IsOptional()
  @IsString()
  DNS_WORDLIST?: string;

  @EnvVar(
    'DNS servers for the dns source and liveness checks, a comma list of host[:port].',
    "(the system's resolvers)",
  )
  @Transform(toList)
  @IsOptional()
  @Matches(/^(\[[0-9a-f:]+\]|[0-9a-z.-]+|[0-9a-f:]+)(:\d{1,5})?$/i, {
    each: true,
    message: 'DNS_SERVERS must be a comma list of host[:port]',
  })
  DNS_SERVERS?: string[];

  @EnvVar('DNS queries in flight at once per scan.', '50')
  @Transform(toInt)
  @Min(1)
  @Max(1000)
  @IsInt()
  DNS_CONCURRENCY = 50;

  @EnvVar('Milliseconds to wait for one DNS answer.', '3000')
  @Transform(toInt)
  @Min(100)
  @Max(60_000)
  @IsInt()
  DNS_TIMEOUT_MS = 3000;

  @EnvVar(
    'External enumerator for the command source, run without a shell; {domain} is replaced. One host per line on stdout.',
  )
  @IsOptional()
  @IsString()
  SCAN_COMMAND?: string;

  @EnvVar('Seconds the command source may run.', '600')
  @Transform(toInt)
  @Min(1)
  @Max(86_400)
  @IsInt()
  SCAN_COMMAND_TIMEOUT_SECONDS = 600;

  @EnvVar(
    "Environment variables SCAN_COMMAND is given besides PATH, HOME, LANG and LC_ALL, a comma list of names (e.g. its API keys' variables); it sees no other, such as DATABASE_URL.",
  )
  @Transform(toCaseList)
  @IsOptional()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    each: true,
    message: 'SCAN_COMMAND_ENV must be a comma list of environment variable names',
  })
  SCAN_COMMAND_ENV?: string[];

  @OnOffVar(
    'Check liveness: on also resolves each name found and every known host (A, AAAA, CNAME); off trusts the sources.',
    'off',
  )
  RESOLVE: OnOff = 'off';

  @EnvVar('When the worker ticks: a cron expression, five fields or six with seconds.', '0 * * * * *')
  @ValidateBy(
    { name: 'isCron', validator: { validate: isCronExpression } },
    { message: 'WORKER_CRON must be a cron expression of five fields, or six with seconds' },
  )
  WORKER_CRON = '0 * * * * *';

  @EnvVar('Scans one worker process runs at once.', '4')
  @Transform(toInt)
  @Min(1)
  @Max(64)
  @IsInt()
  SCAN_CONCURRENCY = 4;

  @EnvVar('Seconds a scan works per tick before it yields and goes on at the next tick.', '30')
  @Transform(toInt)
  @Min(1)
  @Max(3600)
  @IsInt()
  SCAN_SLICE_SECONDS = 30;

  @EnvVar('Seconds a worker holds a scan without a heartbeat; after that another worker takes it up.', '120')
  @Transform(toInt)
  @Min(5)
  @Max(86_400)
  @IsInt()
  SCAN_LEASE_SECONDS = 120;

  @EnvVar(
    'Scope lists the worker imports on SYNC_CRON: a comma list of format:URL, e.g. bounty-targets:https://…/hackerone_data.json.',
  )
  @Transform(toCaseList)
  @IsOptional()
  @Matches(/^(bounty-targets|chaos|txt):https?:\/\/\S+$/, {
    each: true,
    message: 'SYNC_SOURCES must be a comma list of format:URL with format bounty-targets, chaos or txt',
  })
  SYNC_SOURCES?: string[];

  @EnvVar('When the worker syncs SYNC_SOURCES: a cron expression, five fields or six with seconds.', '0 0 */6 * * *')
  @ValidateBy(
    { name: 'isCron', validator: { validate: isCronExpression } },
    { message: 'SYNC_CRON must be a cron expression of five fields, or six with seconds' },
  )
  SYNC_CRON = '0 0 */6 * * *';

  @OnOffVar('Disable the domains that left a synced scope list: on or off.', 'off')
  SYNC_PRUNE: OnOff = 'off';

  @EnvVar(
    'Certificate Transparency logs the worker follows, a comma list: URL is an RFC 6962 log (its base URL: ' +
      'URL/ct/v1/get-sth, URL/ct/v1/get-entries), static:URL a static-ct-api log (its monitoring prefix: ' +
      'URL/checkpoint, URL/tile/data/…), and the word list every usable or qualified log of CT_LOG_LIST. Each log ' +
      'is read by one worker process at a time; every certificate name under a tracked, enabled root is recorded ' +
      'as a host. Unset: no follower.',
  )
  @Transform(toCaseList)
  @IsOptional()
  @Matches(/^((static:)?https?:\/\/[^\s/]+\S*|list)$/i, {
    each: true,
    message: 'CT_LOGS must be a comma list of log URLs (http:// or https://), static:URL logs and the word list',
  })
  CT_LOGS?: string[];

  @EnvVar(
    'The log list that CT_LOGS=list follows: a path or an http(s) URL of a list in the v3 JSON format Chrome ' +
      'publishes. Read when the worker starts and again every day.',
    'https://www.gstatic.com/ct/log_list/v3/log_list.json',
  )
  @MaxLength(2048)
  CT_LOG_LIST = 'https://www.gstatic.com/ct/log_list/v3/log_list.json';

  @EnvVar(
    'Where a log never followed before starts: end (its current tree size, only new entries) or start (index 0). ' +
      'A log followed before always goes on from its saved position.',
    'end',
  )
  @Transform(toLower)
  @IsIn(['end', 'start'])
  CT_START: 'end' | 'start' = 'end';

  @EnvVar("Seconds between reads of a caught-up log's tree head.", '10')
  @Transform(toInt)
  @Min(1)
  @Max(3600)
  @IsInt()
  CT_POLL_SECONDS = 10;

  @EnvVar(
    'Seconds a webhook delivery of CT-found hosts gathers the hosts of later pages of the same domain before it ' +
      'is sent, and a delivery of changes (webhook types other than host_new) the later changes of its domain: ' +
      'a burst makes one message per webhook.',
    '10',
  )
  @Transform(toInt)
  @Min(0)
  @Max(3600)
  @IsInt()
  CT_WEBHOOK_GATHER_SECONDS = 10;

  @EnvVar('get-entries requests in flight at once per followed log.', '4')
  @Transform(toInt)
  @Min(1)
  @Max(32)
  @IsInt()
  CT_CONCURRENCY = 4;

  @EnvVar(
    'Public base URL of the service (e.g. https://monitor.example.com): the OpenAPI document names its servers ' +
      'PUBLIC_URL/api/v1 and PUBLIC_URL/api/public/v1 (unset: the relative /api/v1 and /api/public/v1), and ' +
      'sign-in links start with it (unset: http://HOST:PORT), and webhook messages for people link back to it ' +
      '(unset: no link).',
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
    const shown = /URL|TOKEN|SECRET|PASSWORD|^SYNC_SOURCES$|^SCAN_COMMAND$/.test(first.property)
      ? ''
      : `=${JSON.stringify(raw[first.property])}`;
    throw new ConfigError(`Invalid configuration: ${first.property}${shown}: ${reason}`);
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
