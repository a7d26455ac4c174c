import type { DatabaseTarget } from './database.js';

/** Names of the migrations this process applied at start (empty when the schema was already current). */
export class MigrationReport {
  applied: string[] = [];
}

/** Which database this process uses: a server by URL, or the embedded one. */
export class DatabaseInfo {
  constructor(readonly target: DatabaseTarget) {}
}
