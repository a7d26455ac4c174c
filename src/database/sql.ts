import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';

type Queryable = DataSource | EntityManager;

/**
 * Runs one parameterised statement: inside a transaction on its runner; otherwise straight on the pg pool
 * TypeORM holds (one round trip, none of a query runner's bookkeeping: this is every API request's path).
 */
async function run(db: Queryable, sql: string, params: unknown[]): Promise<{ rows: unknown[]; count: number }> {
  const manager = db instanceof DataSource ? db.manager : db;
  if (manager.queryRunner) {
    const result = await manager.queryRunner.query(sql, params, true);
    return { rows: result.records as unknown[], count: result.affected ?? 0 };
  }
  const { driver, logger } = manager.connection;
  logger.logQuery(sql, params); // TypeORM's query log, as its own runner would write it
  const result = await (driver as unknown as { master: Pool }).master.query(sql, params);
  return { rows: result.rows as unknown[], count: result.rowCount ?? 0 };
}

/** Rows of a statement, the same shape for SELECT and for UPDATE/INSERT … RETURNING. */
export async function rows<T>(db: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await run(db, sql, params)).rows as T[];
}

/** How many rows a statement changed. */
export async function affected(db: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  return (await run(db, sql, params)).count;
}

/** A timestamptz column as ISO 8601 in UTC with all six fraction digits, exactly as stored (cursors rely on it). */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The first whole UTC hour after a moment (an SQL expression): the hourly new-host rollups count from it on,
 * and hosts_new_feed_idx the partial hour before it. Inline, never through a CTE, so the planner sees that the
 * partial hour is short and reads it from the index.
 */
export const rollupEdge = (moment: string) => `(date_trunc('hour', ${moment}, 'UTC') + interval '1 hour')`;

/** The first whole UTC day after a moment (an SQL expression): the day rollup counts from it on. */
export const rollupDayEdge = (moment: string) => `(date_trunc('day', ${moment}, 'UTC') + interval '1 day')`;

/**
 * Hosts of one domain first seen since a moment (SQL expressions both), from the per-domain rollups: whole
 * days, then the whole hours before them, then the partial first hour from hosts_domain_feed_idx. Its cost
 * follows the days of the window, not the domain's hosts.
 */
export function domainNewSinceSql(domainId: string, moment: string): string {
  return `((SELECT coalesce(sum(n), 0) FROM domain_new_host_days
             WHERE domain_id = ${domainId} AND day >= ${rollupDayEdge(moment)})
         + (SELECT coalesce(sum(n), 0) FROM domain_new_host_counts
             WHERE domain_id = ${domainId} AND hour >= ${rollupEdge(moment)} AND hour < ${rollupDayEdge(moment)})
         + (SELECT count(*) FROM hosts
             WHERE domain_id = ${domainId} AND first_seen_at >= ${moment} AND first_seen_at < ${rollupEdge(moment)}))`;
}

/** A LIKE pattern that matches text literally anywhere: %, _ and \ in it lose their meaning (use ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Collects parameters while a statement is assembled: `p(value)` returns its placeholder. */
export class Params {
  readonly values: unknown[] = [];

  p(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

export interface Statement {
  sql: string;
  params: unknown[];
}

export interface JsonPage<L> {
  /** The first `take` rows as a compact JSON array, written by PostgreSQL. */
  json: string;
  /** How many rows the statement gave (a statement that asks for take + 1 tells whether more follow). */
  found: number;
  /** How many rows the array holds. */
  count: number;
  /** The last row in the array, decoded (for cursors); null when it is empty. */
  last: L | null;
}

/**
 * Runs a row statement and lets PostgreSQL render its rows as the JSON array of a response body: Node receives
 * one string, each row's JSON on a line of its own (JSON text never holds a raw line break), and cuts it after
 * `take` rows, instead of decoding every row and serialising it again. The rows keep the statement's order (an
 * aggregate over an ordered subquery, as PostgreSQL documents for string_agg).
 */
export async function jsonPage<L>(db: Queryable, statement: Statement, take: number): Promise<JsonPage<L>> {
  const [row] = await rows<{ lines: string | null }>(
    db,
    `SELECT string_agg(row_to_json(r)::text, E'\\n') AS lines FROM (${statement.sql}) r`,
    statement.params,
  );
  const lines = row?.lines ?? '';
  if (lines === '') return { json: '[]', found: 0, count: 0, last: null };
  let found = 1;
  let end = lines.length;
  let lastStart = 0;
  for (let at = lines.indexOf('\n'); at !== -1; at = lines.indexOf('\n', at + 1)) {
    if (found === take) end = at;
    if (found < take) lastStart = at + 1;
    found++;
  }
  const kept = lines.slice(0, end);
  return {
    json: `[${kept.replaceAll('\n', ',')}]`,
    found,
    count: Math.min(found, take),
    last: JSON.parse(kept.slice(lastStart)) as L,
  };
}
