import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createProcessDatabase, startBuiltServer } from './fixtures/built-server.js';
import { runCli } from './fixtures/cli.js';
import { fetchStatus } from './fixtures/http.js';

/** Every 8-character run of a token's secret after the 4 characters `tokens list` shows. */
function fragments(token: string): string[] {
  const secret = token.slice('sm_live_'.length);
  return Array.from({ length: secret.length - 4 - 7 }, (_, i) => secret.slice(4 + i, 12 + i));
}

function leaks(haystack: Buffer, tokens: string[]): string[] {
  return tokens.flatMap((t) => fragments(t).filter((f) => haystack.includes(f)));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * A usable key exists in one place only: the line `tokens create` prints once. The database (its files or a
 * dump of it), the service's logs at the most verbose level, and `tokens list` hold digests and hints.
 */
describe('token secrecy', () => {
  it('leaves no usable token in the database, the logs or tokens list', async () => {
    const db = await createProcessDatabase('sm-secret-');
    const dbEnv = db.env;
    try {
      const cli = async (...args: string[]) => {
        const r = await runCli(args, { ...dbEnv, LOG_LEVEL: 'trace' });
        expect(r.code).toBe(0);
        return r;
      };
      const created = [
        await cli('tokens', 'create', '--name', 'reader'),
        await cli('tokens', 'create', '--name', 'writer', '--scopes', 'read,write'),
        await cli('tokens', 'create', '--name', 'gone'),
      ];
      const tokens = created.map((r) => r.stdout.trim().split('\n').at(-1) as string);
      for (const t of tokens) expect(t).toMatch(/^sm_live_[A-Za-z0-9]{40}$/);
      const [reader, writer, gone] = tokens;

      const server = await startBuiltServer({ ...dbEnv, WORKER: 'off', LOG_LEVEL: 'trace' });
      let logs = '';
      try {
        const call = (headers: Record<string, string>, path = '/me', method = 'GET') =>
          fetchStatus(`${server.baseUrl}/api/v1${path}`, {
            method,
            headers,
            body: method === 'POST' ? '{}' : undefined,
          });
        expect(await call({ authorization: `Bearer ${reader}` })).toBe(200);
        expect(await call({ 'x-api-key': writer })).toBe(200);
        // A near miss, a revoked key, a read key on a write endpoint: refused, and the refusal logs no key.
        const nearMiss = reader.slice(0, -1) + (reader.endsWith('a') ? 'b' : 'a');
        expect(await call({ 'x-api-key': nearMiss })).toBe(401);
        await cli('tokens', 'revoke', 'gone');
        expect(await call({ 'x-api-key': gone })).toBe(401);
        expect(await call({ 'x-api-key': reader, 'content-type': 'application/json' }, '/scans', 'POST')).toBe(403);
      } finally {
        await server.stop();
        logs = server.output();
      }
      expect(logs).toMatch(/listening on/);
      expect(leaks(Buffer.from(logs), tokens)).toEqual([]);

      const list = await cli('tokens', 'list');
      expect(list.stdout).toMatch(/reader/);
      expect(list.stdout).toContain(reader.slice(0, 12));
      expect(leaks(Buffer.from(list.stdout + list.stderr), tokens)).toEqual([]);
      for (const r of created) expect(leaks(Buffer.from(r.stderr), tokens)).toEqual([]);

      if (dbEnv.DATABASE_URL) {
        const dump = execFileSync('pg_dump', ['--no-owner', '--data-only', dbEnv.DATABASE_URL], {
          maxBuffer: 256 * 1024 * 1024,
        });
        expect(dump.includes('key_hash')).toBe(true);
        expect(leaks(dump, tokens)).toEqual([]);
      } else {
        // The embedded database's own files, WAL included: what a stolen disk or backup would show.
        const files = filesUnder(db.dataDir);
        expect(files.length).toBeGreaterThan(100);
        for (const file of files)
          expect({ file, leaks: leaks(readFileSync(file), tokens) }).toEqual({ file, leaks: [] });
      }
    } finally {
      await db.close();
    }
  }, 180_000); // a dozen CLI runs, each starting the embedded database: slow on a busy machine
});
