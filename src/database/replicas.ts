import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * The read endpoints' handle on a data source: their statements go to a read replica when DATABASE_REPLICA_URLS
 * configured TypeORM's replication (its `slaves`), else to the primary like any other.
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

/** The pg pool TypeORM holds for the data source's primary (its driver's `master`). */
export function poolOf(db: DataSource | EntityManager): Pool {
  const manager = db instanceof DataSource ? db.manager : db;
  return (manager.connection.driver as unknown as { master: Pool }).master;
}

/** The pg pools TypeORM holds for the read replicas (its driver's `slaves`): none without replication. */
export function replicaPools(db: DataSource | EntityManager): Pool[] {
  const manager = db instanceof DataSource ? db.manager : db;
  return (manager.connection.driver as unknown as { slaves?: Pool[] }).slaves ?? [];
}

/** One of the replicas' pools, at random as TypeORM's own `slave` runners choose; none without replication. */
export function replicaPool(manager: EntityManager): Pool | undefined {
  const slaves = replicaPools(manager);
  return slaves.length ? slaves[Math.floor(Math.random() * slaves.length)] : undefined;
}
