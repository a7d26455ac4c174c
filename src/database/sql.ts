import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Pool, QueryResult } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * The read endpoints' handle on a data source: their statements go to a read replica when DATABASE_REPLICA_URLS
 * configured TypeORM's replication (its `slaves`), else to the primary like any other.
 */
export class ReplicaReads {
  constructor(readonly source: DataSource) {}
}

export type Queryable = DataSource | EntityManager | ReplicaReads;

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
  const replica = db instanceof ReplicaReads ? replicaPool(manager) : undefined;
  if (replica) {
    try {
      const result = await send(replica, sql, params, options);
      return { rows: result.rows as unknown[], count: result.rowCount ?? 0 };
    } catch (error) {
      if (!isReplicaFailure(error)) throw error;
      noteReplicaFallback(error);
    }
  }
  const result = await send(poolOf(manager), sql, params, options);
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

/** Whether a pool keeps prepared statements: set in its options (see dataSourceOptions). */
function mayPrepare(pool: Pool): boolean {
  return (pool as Pool & { options?: { preparedStatements?: boolean } }).options?.preparedStatements === true;
}

/** One statement on a pool (see SendOptions). */
function send(pool: Pool, sql: string, params: unknown[], { rowMode, prepare }: SendOptions): Promise<QueryResult> {
  const name = prepare && mayPrepare(pool) ? preparedName(sql) : undefined;
  if (rowMode) return pool.query({ text: sql, values: params, rowMode, name });
  return pool.query({ text: sql, values: params, name });
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
function replicaPool(manager: EntityManager): Pool | undefined {
  const slaves = replicaPools(manager);
  return slaves.length ? slaves[Math.floor(Math.random() * slaves.length)] : undefined;
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
async function rowsLike<T>(db: Queryable, sql: string, { params, prepare }: Statement): Promise<T[]> {
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

/** A rollup's unit: each of its rows counts the hosts first seen in one UTC day, hour or minute. */
type RollupUnit = 'day' | 'hour' | 'minute';

/**
 * The first whole UTC unit after a moment (an SQL expression): a rollup of that unit counts from it on. Inline,
 * never through a CTE, so the planner sees how short the finer parts before it are and reads them by index.
 */
const rollupEdge = (moment: string, unit: RollupUnit) =>
  `(date_trunc('${unit}', ${moment}, 'UTC') + interval '1 ${unit}')`;

/** One source of new-host counts: `SELECT … FROM …`, its time column, and optionally a filter and a GROUP BY. */
interface CountSource {
  select: string;
  at: string;
  where?: string;
  groupBy?: string;
}

/**
 * Hosts first seen since a moment, as rows to add up (a UNION ALL of like rows): each rollup, coarsest first,
 * from its first whole unit after the moment to where the coarser one before it begins, and the hosts themselves
 * for the rest, less than the finest unit (on hosts_new_feed_idx). The cost follows the rollup rows of the window
 * and at most one finest unit of hosts, never the window's hosts.
 */
function newSinceSql(moment: string, rollups: (CountSource & { unit: RollupUnit })[], hosts: CountSource): string {
  const edges = rollups.map((r) => rollupEdge(moment, r.unit));
  const part = (s: CountSource, from: string, to: string | undefined) =>
    `${s.select} WHERE ${s.where ? `${s.where} AND ` : ''}${s.at} >= ${from}` +
    `${to ? ` AND ${s.at} < ${to}` : ''}${s.groupBy ? ` GROUP BY ${s.groupBy}` : ''}`;
  return [...rollups.map((r, i) => part(r, edges[i], edges[i - 1])), part(hosts, moment, edges.at(-1))].join(
    '\n UNION ALL\n',
  );
}

/**
 * Hosts first seen since a moment, per domain, as (domain_id, n) rows to add up: whole UTC days from the day
 * rollup, the whole hours before the first of them from the hour rollup, and the partial first hour from the
 * hosts themselves. Every domain, or the one `domainId` names (SQL expressions both).
 */
export function domainNewPartsSql(moment: string, domainId?: string): string {
  const where = domainId ? `domain_id = ${domainId}` : undefined;
  return newSinceSql(
    moment,
    [
      { unit: 'day', select: 'SELECT domain_id, n FROM domain_new_host_days', at: 'day', where },
      { unit: 'hour', select: 'SELECT domain_id, n FROM domain_new_host_counts', at: 'hour', where },
    ],
    { select: 'SELECT domain_id, count(*) FROM hosts', at: 'first_seen_at', where, groupBy: 'domain_id' },
  );
}

/**
 * Hosts first seen since a moment, as (platform_slug, at, n) rows to add up, `at` the start of the hour or minute
 * they count (or a host's own first_seen_at): whole UTC hours from new_host_counts, the whole minutes before the
 * first of them from new_host_minutes, and the partial first minute from the hosts themselves, whose platform is
 * looked up only `byPlatform` (NULL otherwise).
 */
export function newHostPartsSql(moment: string, { byPlatform }: { byPlatform: boolean }): string {
  return newSinceSql(
    moment,
    [
      { unit: 'hour', select: 'SELECT platform_slug, hour AS at, n FROM new_host_counts', at: 'hour' },
      { unit: 'minute', select: 'SELECT platform_slug, minute, n FROM new_host_minutes', at: 'minute' },
    ],
    {
      select: byPlatform
        ? 'SELECT d.platform_slug, h.first_seen_at, 1 FROM hosts h JOIN domains d ON d.id = h.domain_id'
        : 'SELECT NULL, h.first_seen_at, 1 FROM hosts h',
      at: 'h.first_seen_at',
    },
  );
}

/** A LIKE pattern that matches text literally anywhere: %, _ and \ in it lose their meaning (use ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A condition that keeps a prepared statement planned for its parameters on every run (migration
 * CustomPlanGuard): a plan made for them folds it to true and drops it; the generic plan keeps a call that costs
 * more than any plan, so PostgreSQL never settles on it. For a statement whose best plan differs with its
 * parameters: a substring search reads a rare term's matches through the trigrams and walks newest first for a
 * common one; under one plan a common term took 50 ms against 2.5 at 1M hosts.
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

/**
 * The one row a statement gives, rendered as a JSON object by PostgreSQL (see jsonPage); null when it gives none.
 */
export async function jsonRow(db: Queryable, statement: Statement): Promise<string | null> {
  const [row] = await rowsLike<{ json: string }>(
    db,
    `SELECT row_to_json(r)::text AS json FROM (${statement.sql}) r`,
    statement,
  );
  return row?.json ?? null;
}

/** Whether a statement's parameters are the first of another's, so that one statement can hold both texts. */
const paramsLead = (lead: Statement, of: Statement) => lead.params.every((value, i) => of.params[i] === value);

/**
 * A page rendered by PostgreSQL (jsonPage) and the count of all that match, in one statement (one round trip)
 * when the count's parameters are the first of the page's, as pageWithCount writes them; else side by side.
 */
export async function jsonPageAndTotal(
  db: Queryable,
  { page, count }: { page: Statement; count: Statement },
  take: number,
): Promise<{ json: string | Buffer; total: number }> {
  if (paramsLead(count, page)) {
    const [row] = await rowsLike<{ lines: string | null; total: number }>(
      db,
      `SELECT (${jsonLinesSql(page.sql)}) AS lines, (${count.sql}) AS total`,
      { ...page, prepare: page.prepare && count.prepare },
    );
    return { json: pageOfLines<unknown>(row?.lines ?? null, take).json, total: row?.total ?? 0 };
  }
  const [found, [counted]] = await Promise.all([
    jsonPage(db, page, take),
    rowsLike<{ total: number }>(db, count.sql, count),
  ]);
  return { json: found.json, total: counted?.total ?? 0 };
}

export interface JsonPage<L> {
  /** The first `take` rows as a compact JSON array, written by PostgreSQL; in bytes when large (pageOfLines). */
  json: string | Buffer;
  /** How many rows the statement gave (a statement that asks for take + 1 tells whether more follow). */
  found: number;
  /** How many rows the array holds. */
  count: number;
  /** The last row in the array, decoded when read (for cursors); null when it is empty. */
  readonly last: L | null;
}

/**
 * Runs a row statement and lets PostgreSQL render its rows as the JSON array of a response body: Node receives
 * one string, each row's JSON on a line of its own (JSON text never holds a raw line break), and cuts it after
 * `take` rows, instead of decoding every row and serialising it again. The rows keep the statement's order (an
 * aggregate over an ordered subquery, as PostgreSQL documents for string_agg).
 */
export async function jsonPage<L>(db: Queryable, statement: Statement, take: number): Promise<JsonPage<L>> {
  const [row] = await rowsLike<{ lines: string | null }>(db, jsonLinesSql(statement.sql), statement);
  return pageOfLines<L>(row?.lines ?? null, take);
}

/** A row statement's rows as one text, each row's JSON on a line of its own, in the statement's order. */
const jsonLinesSql = (sql: string) => `SELECT string_agg(row_to_json(r)::text, E'\\n') AS lines FROM (${sql}) r`;

/** Pages of more characters than this are made bytes (see RenderedJson): 1,000 domains are some 220,000. */
const LARGE_PAGE = 100_000;
const [OPEN, COMMA, CLOSE, LINE_BREAK] = ['[', ',', ']', '\n'].map((c) => c.charCodeAt(0));

/**
 * The first `take` of the rows jsonLinesSql gave, as a JSON array (see jsonPage). A large page's text is encoded
 * once into the array's bytes, each line break between rows made a comma there (UTF-8 never holds the byte of a
 * line break inside another character), and no other string of its size is built.
 */
function pageOfLines<L>(lines: string | null, take: number): JsonPage<L> {
  if (!lines) return { json: '[]', found: 0, count: 0, last: null };
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
    json: kept.length > LARGE_PAGE ? arrayBytes(kept) : `[${kept.replaceAll('\n', ',')}]`,
    found,
    count: Math.min(found, take),
    // Decoded only for a caller that makes a cursor of it.
    get last() {
      return JSON.parse(kept.slice(lastStart)) as L;
    },
  };
}

/** Lines of JSON as the bytes of one JSON array (see pageOfLines). */
function arrayBytes(lines: string): Buffer {
  const json = Buffer.allocUnsafe(Buffer.byteLength(lines) + 2);
  json[0] = OPEN;
  const written = json.write(lines, 1);
  json[written + 1] = CLOSE;
  for (let at = json.indexOf(LINE_BREAK, 1); at !== -1; at = json.indexOf(LINE_BREAK, at + 1)) json[at] = COMMA;
  return json;
}
