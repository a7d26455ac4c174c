import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'typeorm';

/** The statement texts sent while recording, in the async context that records them (never another's). */
const recording = new AsyncLocalStorage<string[]>();

/**
 * TypeORM's logger for the data source: every statement reaches it (its own runners log each, and sql.ts logs
 * those it sends on a pool), and it keeps the texts of a recording in progress. Nothing is printed: the service
 * logs requests, not statements. The generated src/queries/*.sql are written from these recordings.
 */
export const statementLog: Logger = {
  logQuery: (query: string) => void recording.getStore()?.push(query),
  logQueryError: () => {},
  logQuerySlow: () => {},
  logSchemaBuild: () => {},
  logMigration: () => {},
  log: () => {},
};

/** Runs `work` and returns the texts of the statements it sent, whether it succeeded or not. */
export async function recordStatements(
  work: () => Promise<unknown>,
): Promise<{ statements: string[]; error?: unknown }> {
  const statements: string[] = [];
  try {
    await recording.run(statements, work);
    return { statements };
  } catch (error) {
    return { statements, error };
  }
}
