import { Logger } from '@nestjs/common';
import type { ClientConfig, Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';

/**
 * The service's handles on PostgreSQL, in one place: the pools TypeORM's postgres driver keeps (its public
 * `master` and `slaves`), the primary for writes and for reads that must see them, the replicas for the read
 * endpoints (see ReplicaReads), and whether statements may be prepared on them. One per data source.
 */
export class Db {
  private static readonly of_ = new WeakMap<DataSource, Db>();

  /** The handles of a data source (or of the one a manager belongs to); the data source must be initialised. */
  static of(db: DataSource | EntityManager): Db {
    const source = db instanceof DataSource ? db : db.connection;
    let handles = Db.of_.get(source);
    if (!handles) {
      handles = new Db(source);
      Db.of_.set(source, handles);
    }
    return handles;
  }

  private constructor(private readonly source: DataSource) {}

  private get driver(): PostgresDriver {
    const driver = this.source.driver;
    if (!(driver instanceof PostgresDriver)) throw new Error('the service runs on the postgres driver only');
    return driver;
  }

  /** The primary's pool: every write, every transaction, and the reads that must see the latest write. */
  get primary(): Pool {
    return this.driver.master as Pool;
  }

  /** The read replicas' pools (DATABASE_REPLICA_URLS): none without replication. */
  get replicas(): readonly Pool[] {
    return (this.driver.slaves ?? []) as Pool[];
  }

  /** One of the replicas' pools, at random as TypeORM's own read runners choose; none without replication. */
  replica(): Pool | undefined {
    const { replicas } = this;
    return replicas.length ? replicas[Math.floor(Math.random() * replicas.length)] : undefined;
  }

  /** How to open a connection of its own to the primary, outside the pool (locks, LISTEN). */
  get primaryConfig(): ClientConfig {
    return this.primary.options;
  }

  /** Whether statements marked `prepare` are prepared on each connection (DATABASE_PREPARED_STATEMENTS). */
  get prepares(): boolean {
    return (this.driver.options.extra as { preparedStatements?: boolean } | undefined)?.preparedStatements === true;
  }
}

/**
 * The read endpoints' handle on a data source: their statements go to a read replica when DATABASE_REPLICA_URLS
 * configured TypeORM's replication, else to the primary like any other.
 */
export class ReplicaReads {
  constructor(readonly source: DataSource) {}
}

const replicaLog = new Logger('Replicas');
let lastFallbackWarning = 0;

/**
 * Failures a replica may have that the primary does not: it is down or unreachable (no SQLSTATE, or class 08),
 * shutting down or starting (57P), or it cancelled the statement for a conflict with recovery (40001). The read
 * is then served by the primary, and a warning logged at most once a minute. SQL errors and timeouts are not.
 */
export function isReplicaFailure(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P') || code === '40001';
}

export function noteReplicaFallback(error: unknown): void {
  if (Date.now() - lastFallbackWarning < 60_000) return;
  lastFallbackWarning = Date.now();
  replicaLog.warn(`a read replica failed, reads fall back to the primary: ${(error as Error).message}`);
}
