import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** Where a running embedded database can be reached; written to DATA_DIR so the CLI can attach to it. */
export interface EmbeddedEndpoint {
  pid: number;
  host: string;
  port: number;
}

const ENDPOINT_FILE = 'embedded.json';
// A unix socket path may be at most ~107 bytes; a deeper DATA_DIR falls back to a loopback port.
const MAX_SOCKET_PATH = 100;
// The service's pool (1) plus CLI sessions attached while it runs. PGlite still runs one query at a time.
const MAX_CONNECTIONS = 8;

export class DataDirInUseError extends Error {}

export class EmbeddedDatabase {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly endpoint: EmbeddedEndpoint,
    private readonly dataDir: string | null,
  ) {}

  /** Starts PGlite on dataDir (null: in memory, for tests) and serves it over the PostgreSQL wire protocol. */
  static async start(dataDir: string | null): Promise<EmbeddedDatabase> {
    let dir: string | null = null;
    if (dataDir !== null) {
      dir = resolve(dataDir);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const running = EmbeddedDatabase.findRunning(dir);
      if (running) {
        throw new DataDirInUseError(`DATA_DIR ${dir} is in use by process ${running.pid}`);
      }
    }
    const extensions = { btree_gin, pg_trgm };
    const db = dir ? new PGlite(`${dir}/pgdata`, { extensions }) : new PGlite({ extensions });
    await db.waitReady;

    const socketPath = dir ? `${dir}/.s.PGSQL.5432` : null;
    const useSocket = socketPath !== null && socketPath.length <= MAX_SOCKET_PATH;
    if (useSocket) rmSync(socketPath, { force: true });
    const server = useSocket
      ? new PGLiteSocketServer({ db, path: socketPath, maxConnections: MAX_CONNECTIONS })
      : new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: MAX_CONNECTIONS });
    await server.start();

    const endpoint: EmbeddedEndpoint = useSocket
      ? { pid: process.pid, host: dir as string, port: 5432 }
      : { pid: process.pid, ...parseHostPort(server.getServerConn()) };
    if (dir) writeFileSync(`${dir}/${ENDPOINT_FILE}`, JSON.stringify(endpoint), { mode: 0o600 });
    return new EmbeddedDatabase(db, server, endpoint, dir);
  }

  /** The endpoint of a live process serving dataDir, or null (a stale file from a crash is ignored). */
  static findRunning(dataDir: string): EmbeddedEndpoint | null {
    const file = `${resolve(dataDir)}/${ENDPOINT_FILE}`;
    if (!existsSync(file)) return null;
    try {
      const endpoint = JSON.parse(readFileSync(file, 'utf8')) as EmbeddedEndpoint;
      if (endpoint.pid === process.pid) return null;
      process.kill(endpoint.pid, 0);
      return endpoint;
    } catch {
      return null;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    if (this.dataDir) {
      rmSync(`${this.dataDir}/${ENDPOINT_FILE}`, { force: true });
      rmSync(`${this.dataDir}/.s.PGSQL.5432`, { force: true });
    }
  }
}

function parseHostPort(conn: string): { host: string; port: number } {
  const i = conn.lastIndexOf(':');
  return { host: conn.slice(0, i), port: Number(conn.slice(i + 1)) };
}
