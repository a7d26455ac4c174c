import { DataSource, type EntityManager, type QueryResult } from 'typeorm';

type Queryable = DataSource | EntityManager;

/** Runs one parameterised statement on the transaction's runner when there is one, else on a pooled one. */
async function run(db: Queryable, sql: string, params: unknown[]): Promise<QueryResult> {
  const manager = db instanceof DataSource ? db.manager : db;
  const own = manager.queryRunner === undefined;
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    return await runner.query(sql, params, true);
  } finally {
    if (own) await runner.release();
  }
}

/** Rows of a statement, the same shape for SELECT and for UPDATE/INSERT … RETURNING. */
export async function rows<T>(db: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await run(db, sql, params)).records as T[];
}

/** How many rows a statement changed. */
export async function affected(db: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  return (await run(db, sql, params)).affected ?? 0;
}

/** A timestamptz column as ISO 8601 in UTC with all six fraction digits, exactly as stored (cursors rely on it). */
export const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

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
