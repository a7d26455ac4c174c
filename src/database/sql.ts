import { createHash } from 'node:crypto';
import type { Pool, QueryResult } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { Db, isReplicaFailure, noteReplicaFallback, ReplicaReads } from './db.js';

export type Queryable = DataSource | EntityManager | ReplicaReads;

/**
 * Runs one parameterised statement: inside a transaction on its runner; otherwise straight on the pg pool
 * TypeORM holds (one round trip, none of a query runner's bookkeeping: this is every API request's path).
 */
async function run(
  db: Queryable,
  sql: string,
  params: unknown[],
  options: SendOptions = {},
): Promise<{ rows: unknown[]; count: number }> {
  const manager = db instanceof ReplicaReads ? db.source.manager : db instanceof DataSource ? db.manager : db;
  if (manager.queryRunner) {
    const result = await manager.queryRunner.query(sql, params, true);
    return { rows: result.records as unknown[], count: result.affected ?? 0 };
  }
  manager.connection.logger.logQuery(sql, params); // TypeORM's query log, as its own runner would write it
  const handles = Db.of(manager);
  const replica = db instanceof ReplicaReads ? handles.replica() : undefined;
  if (replica) {
    try {
      const result = await send(replica, sql, params, options, handles.prepares);
      return { rows: result.rows as unknown[], count: result.rowCount ?? 0 };
    } catch (error) {
      if (!isReplicaFailure(error)) throw error;
      noteReplicaFallback(error);
    }
  }
  const result = await send(handles.primary, sql, params, options, handles.prepares);
  return { rows: result.rows as unknown[], count: result.rowCount ?? 0 };
}

/**
 * How a statement is sent: `rowMode: 'array'` gives each row as an array of its columns; `prepare` makes it a
 * prepared statement on each pooled connection (see Statement.prepare) where the pool allows it.
 */
interface SendOptions {
  rowMode?: 'array';
  prepare?: boolean;
}

const preparedNames = new Map<string, string>();

/**
 * The name a prepared statement has on every connection: from its text, so that one text is one name. Only the
 * code's own fixed texts are prepared (see Statement.prepare), so the map stays small.
 */
export function preparedName(sql: string): string {
  let name = preparedNames.get(sql);
  if (name === undefined) {
    name = `sm_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    preparedNames.set(sql, name);
  }
  return name;
}

/** One statement on a pool (see SendOptions); `mayPrepare`: the pools keep prepared statements (see Db.prepares). */
function send(
  pool: Pool,
  sql: string,
  params: unknown[],
  { rowMode, prepare }: SendOptions,
  mayPrepare: boolean,
): Promise<QueryResult> {
  const name = prepare && mayPrepare ? preparedName(sql) : undefined;
  if (rowMode) return pool.query({ text: sql, values: params, rowMode, name });
  return pool.query({ text: sql, values: params, name });
}

/** Rows of a statement, the same shape for SELECT and for UPDATE/INSERT … RETURNING. */
export async function rows<T>(db: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await run(db, sql, params)).rows as T[];
}

/** Rows of a statement that is prepared on each connection (see Statement.prepare). */
export async function preparedRows<T>(db: Queryable, sql: string, params: unknown[]): Promise<T[]> {
  return (await run(db, sql, params, { prepare: true })).rows as T[];
}

/** Rows of `sql` with a statement's parameters, prepared when the statement is (see Statement.prepare). */
export async function rowsLike<T>(db: Queryable, sql: string, { params, prepare }: Statement): Promise<T[]> {
  return (await run(db, sql, params, { prepare })).rows as T[];
}

/**
 * Rows of a statement outside a transaction, each an array of its columns in order: for hot paths that read many
 * rows (the export), where an object per row is garbage that grows the heap.
 */
export async function rowArrays<T extends unknown[]>(
  db: DataSource | ReplicaReads,
  sql: string,
  params: unknown[] = [],
) {
  return (await run(db, sql, params, { rowMode: 'array' })).rows as T[];
}

/** How many rows a statement changed. */
export async function affected(db: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  return (await run(db, sql, params)).count;
}

/** A timestamptz column as ISO 8601 in UTC with all six fraction digits, exactly as stored (cursors rely on it). */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A LIKE pattern that matches text literally anywhere: %, _ and \ in it lose their meaning (use ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A condition that keeps a prepared statement planned for its parameters on every run (migration
 * CustomPlanGuard): a plan made for them folds it to true and drops it; the generic plan keeps a call that costs
 * more than any plan, so PostgreSQL never settles on it. For a statement whose best plan differs with its
 * parameters: a substring search reads a rare term's matches through the trigrams and walks newest first for a
 * common one, and one plan for both is slow for one of them. The plain alternative, the same searches as unnamed
 * statements (planned for their parameters, but parsed and analysed on every call), served half to three
 * quarters of the requests a second (bench/results/ab-plan-guard-unnamed.json, in the benchmarks page).
 */
export const customPlanOnly = (q: Params) => `(${q.p(true)}::boolean OR custom_plan_guard())`;

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
  /**
   * Prepare it once on each pooled connection rather than parse and analyse it on every call: for a text run on
   * many requests. After five runs PostgreSQL may settle on one generic plan for every parameter, which serves a
   * lookup by a unique key, and a walk of an index newest first (the feeds, a domain's hosts: the generic plan of
   * the largest domain's page at 1M hosts took 0.5 ms against 0.8 for its own). A statement whose best plan
   * differs with its parameters, so that one plan cannot serve them all, takes customPlanOnly among its
   * conditions. Never for a text that carries a value rather than a parameter, nor for one of many shapes (a
   * prepared search holds about 200 KB on each connection): each would stay on each connection.
   */
  prepare?: boolean;
  /**
   * Each row's JSON object as a text expression over the row `r`, for jsonPage, in place of `row_to_json(r)`: a list
   * whose columns are known writes its objects by concatenation (see rowJson), which costs PostgreSQL less than
   * row_to_json's look at each column's type on every row.
   */
  json?: string;
  /**
   * The columns whose values are JSON text (the last of each row, in order), for nodePage: written into each row's
   * object as they are, not parsed and written again.
   */
  jsonText?: readonly string[];
}

/**
 * A filtered list's two statements: the page, and the count of all that match. `where` holds conditions written
 * with `q`'s placeholders; the count takes the filters' parameters, the page also its limit and offset.
 */
export function pageWithCount(
  q: Params,
  list: {
    select: string;
    from: string;
    /** What the count reads, when less than `from` gives the same count (a join every row has). */
    countFrom?: string;
    where: string[];
    orderBy: string;
    limit: number;
    offset: number;
    /**
     * The page's rows chosen first, as whole rows of the table aliased `alias`, read from what the count reads,
     * and `select` computed for the page's rows alone, `join`ed to what else it shows: rows an offset skips are
     * then never rendered (timestamps written as text, a joined domain). 100 scans past 2,000 at 1M hosts:
     * 7.1 → 1.4 ms. Not for rows an index gives without their table (host lists).
     */
    pageFirst?: { alias: string; join?: string };
  },
): { page: Statement; count: Statement } {
  const condition = list.where.length > 0 ? `WHERE ${list.where.join(' AND ')}` : '';
  const first = list.pageFirst;
  const counted = list.countFrom ?? list.from;
  const count = {
    sql: `SELECT count(*)::int AS total FROM ${counted} ${condition}`,
    params: [...q.values],
  };
  const window = `ORDER BY ${list.orderBy} LIMIT ${q.p(list.limit)} OFFSET ${q.p(list.offset)}`;
  const page = {
    sql: first
      ? `SELECT ${list.select}
           FROM (SELECT ${first.alias}.* FROM ${counted} ${condition} ${window}) ${first.alias} ${first.join ?? ''}
          ORDER BY ${list.orderBy}`
      : `SELECT ${list.select} FROM ${list.from} ${condition} ${window}`,
    params: q.values,
  };
  return { page, count };
}
