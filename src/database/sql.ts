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
