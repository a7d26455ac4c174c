import pg from 'pg';
import type { DataSourceOptions } from 'typeorm';
import type { Environment } from '../config/environment.js';
import { MIGRATIONS } from './migrations.js';
import { statementLog } from './statement-log.js';
import type { DatabaseTarget } from './database.js';

/** The data source's options; `entities` are the app's (src/app/entities.ts), since the database knows no feature. */
export function dataSourceOptions(
  target: DatabaseTarget,
  env: Environment,
  entities: DataSourceOptions['entities'],
): DataSourceOptions {
  const connection =
    target.kind === 'server'
      ? { url: target.url }
      : { host: target.host, port: target.port, username: 'postgres', database: 'postgres' };
  const replicas = target.kind === 'server' ? (env.DATABASE_REPLICA_URLS ?? []) : [];
  // Not on the embedded database: its one backend outlives every connection and would keep a closed one's names.
  const prepare = target.kind === 'server' && env.DATABASE_PREPARED_STATEMENTS === 'on';
  return {
    type: 'postgres',
    // The pg this code imports, where TypeORM would require() its own: in the CLI's bundle that was a second copy
    // of pg, loaded from node_modules file by file at every start.
    driver: pg,
    ...connection,
    // TypeORM's replication: a pool per replica beside the primary's. Everything TypeORM runs itself stays on the
    // primary (defaultMode); the read endpoints pick a replica through ReplicaReads (see db.ts).
    ...(replicas.length && {
      replication: { master: connection, slaves: replicas.map((url) => ({ url })), defaultMode: 'master' as const },
    }),
    applicationName: 'subdomain-monitor',
    logger: statementLog,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    // PGlite runs one backend: a second pooled connection inside a transaction would deadlock.
    poolSize: target.kind === 'embedded' ? 1 : env.DATABASE_POOL_SIZE,
    extra: {
      // Read by Db.prepares: statements marked `prepare` are prepared on each connection (DATABASE_PREPARED_STATEMENTS).
      preparedStatements: prepare,
      connectionTimeoutMillis: env.DATABASE_CONNECT_TIMEOUT_MS,
      statement_timeout: env.QUERY_TIMEOUT_MS,
      idle_in_transaction_session_timeout: 60_000,
      // No JIT on a server's connections (primary and replicas): every statement of the service is a short one,
      // and a feed's estimate on hosts with what is known of them passes jit_above_cost, where compiling its
      // expressions took 9 ms of a 42 ms statement. The embedded database has no JIT.
      ...(target.kind === 'server' && { options: '-c jit=off' }),
    },
  };
}
