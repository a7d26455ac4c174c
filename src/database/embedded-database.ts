import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** Where a running embedded database can be reached; written to DATA_DIR so the CLI can attach to it. */
export interface EmbeddedEndpoint {
  pid: number;
  /** The private directory holding the unix socket (pg reads a host starting with / as a socket directory). */
  host: string;
  /** The socket's name is .s.PGSQL.<port>. */
  port: number;
}

const ENDPOINT_FILE = 'embedded.json';
const SOCKET_PORT = 5432;
const SOCKET_DIR_PREFIX = 'subdomain-monitor-pg-';
// sun_path holds 108 bytes with its NUL; a longer path cannot be bound.
const MAX_SOCKET_PATH = 107;
// The service's pool (1) plus CLI sessions attached while it runs. PGlite still runs one query at a time.
const MAX_CONNECTIONS = 8;

/** How an embedded database starts. */
export interface EmbeddedOptions {
  /** An in-memory database's first contents: a copy of another's data directory (snapshot). */
  from?: Blob;
  /** Its buffer cache, shared_buffers (EMBEDDED_SHARED_BUFFERS_MB); PostgreSQL's default, 128, when not given. */
  sharedBuffersMb?: number;
}

/** The embedded database cannot start; said in one line. */
export class EmbeddedDatabaseError extends Error {}

/**
 * PGlite served over the PostgreSQL wire protocol. Its socket server has no authentication at all, so it listens
 * only on a unix socket inside a fresh directory of mode 0700 under the temporary directory (short, whatever the
 * length of DATA_DIR): only this user can reach it. Never on TCP, where any local user would be superuser.
 */
export class EmbeddedDatabase {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly endpoint: EmbeddedEndpoint,
    private readonly dataDir: string | null,
  ) {}

  /**
   * Starts PGlite on dataDir (null: in memory, for tests) and serves it on a private unix socket. An in-memory
   * database may start from a copy of another's data directory (snapshot): the tests start each of theirs from one
   * migrated copy instead of running initdb and every migration again (a second a database).
   */
  static async start(
    dataDir: string | null,
    { from, sharedBuffersMb }: EmbeddedOptions = {},
  ): Promise<EmbeddedDatabase> {
    if (dataDir !== null && from) throw new EmbeddedDatabaseError('only an in-memory database starts from a copy');
    let dir: string | null = null;
    if (dataDir !== null) {
      dir = resolve(dataDir);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const running = EmbeddedDatabase.findRunning(dir);
      if (running) {
        throw new EmbeddedDatabaseError(`DATA_DIR ${dir} is in use by process ${running.pid}`);
      }
      removeStaleSocketDir(dir);
    }
    const socketDir = privateSocketDir();
    try {
      const extensions = { btree_gin, pg_trgm };
      // PGlite clears the whole cache as it starts: its size is part of every start's time (docs/development.md).
      const startParams = sharedBuffersMb
        ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`]
        : undefined;
      const options = { extensions, startParams };
      const db = dir ? new PGlite(`${dir}/pgdata`, options) : new PGlite({ ...options, loadDataDir: from });
      await db.waitReady;
      const server = new PGLiteSocketServer({
        db,
        path: join(socketDir, `.s.PGSQL.${SOCKET_PORT}`),
        maxConnections: MAX_CONNECTIONS,
      });
      await server.start();
      const endpoint: EmbeddedEndpoint = { pid: process.pid, host: socketDir, port: SOCKET_PORT };
      if (dir) writeFileSync(`${dir}/${ENDPOINT_FILE}`, JSON.stringify(endpoint), { mode: 0o600 });
      return new EmbeddedDatabase(db, server, endpoint, dir);
    } catch (error) {
      rmSync(socketDir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The endpoint of a live process serving dataDir, or null (a stale file from a crash is ignored). */
  static findRunning(dataDir: string): EmbeddedEndpoint | null {
    const endpoint = readEndpoint(dataDir);
    if (!endpoint || endpoint.pid === process.pid) return null;
    try {
      process.kill(endpoint.pid, 0);
      return endpoint;
    } catch {
      return null;
    }
  }

  /** A copy of the data directory as it is now (a tar archive), for start's `from`. */
  snapshot(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    if (this.dataDir) rmSync(`${this.dataDir}/${ENDPOINT_FILE}`, { force: true });
    rmSync(this.endpoint.host, { recursive: true, force: true });
  }
}

/** A fresh directory only this user can enter (mkdtemp makes it 0700; chmod in case a umask or ACL said more). */
function privateSocketDir(): string {
  const socketDir = mkdtempSync(join(tmpdir(), SOCKET_DIR_PREFIX));
  chmodSync(socketDir, 0o700);
  const socketPath = join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    rmSync(socketDir, { recursive: true, force: true });
    throw new EmbeddedDatabaseError(
      `The embedded database's socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes: set TMPDIR to a shorter directory, or use DATABASE_URL`,
    );
  }
  return socketDir;
}

function readEndpoint(dataDir: string): EmbeddedEndpoint | null {
  const file = `${resolve(dataDir)}/${ENDPOINT_FILE}`;
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as EmbeddedEndpoint;
  } catch {
    return null;
  }
}

/** A process killed before it could stop leaves its socket directory behind: removed when its DATA_DIR is reopened. */
function removeStaleSocketDir(dataDir: string): void {
  const stale = readEndpoint(dataDir);
  if (typeof stale?.host !== 'string') return;
  // Only a directory this code made: a socket directory of ours, directly under the temporary directory.
  if (dirname(stale.host) === tmpdir() && basename(stale.host).startsWith(SOCKET_DIR_PREFIX)) {
    rmSync(stale.host, { recursive: true, force: true });
  }
}
