import type { OnOff } from './env-transforms.js';
import { IntVar, ListVar, OnOffVar, StringVar } from './env-var.decorator.js';

/** The database: the server or the embedded one, its pool, and how processes learn of each other's writes. */
export class DatabaseEnvironment {
  @StringVar({
    secret: true,
    matches: /^postgres(ql)?:\/\/\S+$/,
    message: 'DATABASE_URL must be a postgres:// or postgresql:// URL',
    description:
      'PostgreSQL connection URL (postgres://user:pass@host:5432/db). Unset: an embedded PostgreSQL (PGlite) stored in DATA_DIR.',
  })
  DATABASE_URL?: string;

  @ListVar({
    secret: true,
    matches: /^postgres(ql)?:\/\/\S+$/,
    message: 'DATABASE_REPLICA_URLS must be a comma list of postgres:// or postgresql:// URLs',
    description:
      'Comma list of read-replica URLs (hot standbys of DATABASE_URL). Read endpoints and exports query a replica; writes, keys and the worker stay on DATABASE_URL.',
  })
  DATABASE_REPLICA_URLS?: string[];

  @StringVar({
    default: './data',
    minLength: 1,
    description: 'Directory of the embedded database, used when DATABASE_URL is unset.',
  })
  DATA_DIR: string;

  @IntVar({
    default: 128,
    min: 8,
    max: 1024,
    description:
      "Megabytes of the embedded database's buffer cache (PostgreSQL's shared_buffers), reserved and cleared at start: a smaller cache starts sooner and holds less memory, a larger one keeps more of a large database in memory.",
  })
  EMBEDDED_SHARED_BUFFERS_MB: number;

  @IntVar({
    default: 10,
    min: 1,
    max: 200,
    description: 'Connections in the pool to DATABASE_URL (the embedded database always uses 1).',
  })
  DATABASE_POOL_SIZE: number;

  @IntVar({
    default: 5000,
    min: 100,
    max: 600_000,
    description:
      'Milliseconds a request waits for a free database connection before it is answered 503 service_unavailable with Retry-After (on the embedded database, one connection shared with the worker).',
  })
  DATABASE_CONNECT_TIMEOUT_MS: number;

  @OnOffVar({
    default: 'on',
    description:
      'Prepare the statements every request runs once on each connection, instead of parsing them on every call (a PostgreSQL server only). Turn off behind a pooler that does not keep prepared statements, such as PgBouncer in transaction mode before 1.21.',
  })
  DATABASE_PREPARED_STATEMENTS: OnOff;

  @IntVar({
    default: 15_000,
    min: 100,
    max: 3_600_000,
    description: 'Milliseconds a query may run before it is cancelled and answered with 500 query_failed.',
  })
  QUERY_TIMEOUT_MS: number;

  @IntVar({
    default: 2,
    min: 1,
    max: 60,
    description:
      "Seconds between a process's own looks at the data version, besides the NOTIFY that tells it of each write at once (a notice is lost while its LISTEN connection is down, and a CLI attached to the embedded database sends none to the service).",
  })
  DATA_VERSION_POLL_SECONDS: number;

  @IntVar({
    default: 32,
    min: 0,
    max: 4096,
    description:
      'Megabytes of answers a process keeps per data version: aggregates (/stats, /platforms, /scans/status) and the ETags that answer If-None-Match without a query.',
  })
  RESPONSE_CACHE_MB: number;
}
