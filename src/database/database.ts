import type { Environment } from '../config/environment.js';
import { EmbeddedDatabase, type EmbeddedOptions } from './embedded-database.js';

/** How to reach PostgreSQL: a server by URL, or the embedded one by host (or socket directory) and port. */
export type DatabaseTarget = { kind: 'server'; url: string } | { kind: 'embedded'; host: string; port: number };

export interface OpenDatabase {
  target: DatabaseTarget;
  /** Stops the embedded database this process started; a no-op otherwise. */
  close(): Promise<void>;
}

/**
 * The service owns its database: with DATABASE_URL it uses that server; without, it starts the embedded
 * database in DATA_DIR. `attach` (the CLI) first looks for a running service on DATA_DIR and talks to it,
 * because two processes must never open one PGlite directory.
 */
export async function openDatabase(env: Environment, mode: 'own' | 'attach' = 'own'): Promise<OpenDatabase> {
  if (env.DATABASE_URL) return { target: { kind: 'server', url: env.DATABASE_URL }, close: async () => {} };
  if (mode === 'attach') {
    const running = EmbeddedDatabase.findRunning(env.DATA_DIR);
    if (running) return { target: { kind: 'embedded', host: running.host, port: running.port }, close: async () => {} };
  }
  return startEmbedded(env.DATA_DIR, { sharedBuffersMb: env.EMBEDDED_SHARED_BUFFERS_MB });
}

/** An embedded database in DATA_DIR, or in memory when dataDir is null (tests; started from a copy when given). */
export async function startEmbedded(dataDir: string | null, options: EmbeddedOptions = {}): Promise<OpenDatabase> {
  const embedded = await EmbeddedDatabase.start(dataDir, options);
  const { host, port } = embedded.endpoint;
  return { target: { kind: 'embedded', host, port }, close: () => embedded.stop() };
}
