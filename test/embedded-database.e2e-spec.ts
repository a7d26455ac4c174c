import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadEnvironment } from '../src/config/environment.js';
import { type OpenDatabase, openDatabase, startEmbedded } from '../src/database/database.js';
import { runCli } from './fixtures/cli.js';
import { copyMigratedDataDir } from './fixtures/test-database.js';

/** The TCP sockets this process listens on, by local address (Linux: /proc). */
function listeningTcp(): Set<string> {
  const inodes = new Set(
    readdirSync('/proc/self/fd').map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
      } catch {
        return undefined; // closed while listing
      }
    }),
  );
  const listening = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === '0A' && inodes.has(inode)) listening.add(local);
    }
  }
  return listening;
}

/** The socket directory of an embedded database: private to this user, and a path a unix socket can bind. */
function expectPrivateSocketDir(database: OpenDatabase): string {
  if (database.target.kind !== 'embedded') throw new Error('expected the embedded database');
  const { host, port } = database.target;
  expect(host).toMatch(/^\//);
  expect(port).toBe(5432);
  expect(statSync(host).mode & 0o777).toBe(0o700);
  expect(Buffer.byteLength(join(host, '.s.PGSQL.5432'))).toBeLessThanOrEqual(107);
  return host;
}

async function query(host: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ host, port: 5432, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * PGlite's socket server has no authentication: the embedded database must be reachable by this user only,
 * through a unix socket in a private directory, however long DATA_DIR is, and never on a TCP port.
 */
describe('the embedded database', () => {
  let base: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'sm-embedded-'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('serves a DATA_DIR too deep for a socket on a private socket directory, not TCP, and the CLI attaches', async () => {
    const dataDir = join(base, 'd'.repeat(120));
    expect(Buffer.byteLength(join(dataDir, '.s.PGSQL.5432'))).toBeGreaterThan(107);
    const before = listeningTcp();
    const database = await startEmbedded(dataDir);
    let socketDir = '';
    try {
      expect([...listeningTcp()].filter((a) => !before.has(a))).toEqual([]);
      socketDir = expectPrivateSocketDir(database);
      expect(JSON.parse(readFileSync(join(dataDir, 'embedded.json'), 'utf8'))).toEqual({
        pid: process.pid,
        host: socketDir,
        port: 5432,
      });

      const created = await runCli(['tokens', 'create', '--name', 'attached'], {
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
      });
      expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      expect(await query(socketDir, `SELECT name FROM api_keys`)).toEqual([{ name: 'attached' }]);
    } finally {
      await database.close();
    }
    expect(existsSync(socketDir)).toBe(false);
    expect(existsSync(join(dataDir, 'embedded.json'))).toBe(false);
  });

  it('keeps the in-memory database (tests) off TCP as well', async () => {
    const before = listeningTcp();
    const database = await startEmbedded(null);
    let socketDir = '';
    try {
      expect([...listeningTcp()].filter((a) => !before.has(a))).toEqual([]);
      socketDir = expectPrivateSocketDir(database);
      expect(await query(socketDir, `SELECT 1 AS one`)).toEqual([{ one: 1 }]);
      // Without a size, PostgreSQL's own.
      expect(await query(socketDir, 'SHOW shared_buffers')).toEqual([{ shared_buffers: '128MB' }]);
    } finally {
      await database.close();
    }
    expect(existsSync(socketDir)).toBe(false);
  });

  it('sizes its buffer cache by EMBEDDED_SHARED_BUFFERS_MB', async () => {
    const dataDir = join(base, 'cache');
    await copyMigratedDataDir(dataDir);
    const database = await openDatabase(loadEnvironment({ DATA_DIR: dataDir, EMBEDDED_SHARED_BUFFERS_MB: '24' }));
    try {
      expect(await query(expectPrivateSocketDir(database), 'SHOW shared_buffers')).toEqual([
        { shared_buffers: '24MB' },
      ]);
    } finally {
      await database.close();
    }
    expect(loadEnvironment({}).EMBEDDED_SHARED_BUFFERS_MB).toBe(128);
    expect(() => loadEnvironment({ EMBEDDED_SHARED_BUFFERS_MB: '4' })).toThrow(/EMBEDDED_SHARED_BUFFERS_MB/);
  });

  it('removes the socket directory a killed process left behind when its DATA_DIR is opened again', async () => {
    const dataDir = join(base, 'restarted');
    const left = mkdtempSync(join(tmpdir(), 'subdomain-monitor-pg-'));
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
    const first = await startEmbedded(dataDir);
    await first.close();
    writeFileSync(join(dataDir, 'embedded.json'), JSON.stringify({ pid: deadPid, host: left, port: 5432 }));
    const again = await startEmbedded(dataDir);
    try {
      expect(existsSync(left)).toBe(false);
      expectPrivateSocketDir(again);
    } finally {
      await again.close();
      rmSync(left, { recursive: true, force: true });
    }
  });
});
