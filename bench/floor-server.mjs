// The Node floor: a bare node:http + pg server that runs, for each benchmarked endpoint, the very statements
// the service runs (imported from the built service: token lookup included) and writes the same JSON. It is
// the best a Node process can do on those queries; the service is measured against it.
import { createServer } from 'node:http';
import pg from 'pg';
import { KEY_LOOKUP_SQL } from '../dist/src/auth/api-keys.repository.js';
import { hashToken } from '../dist/src/auth/token.js';
import { newFeedStatement, platformPageStatement } from '../dist/src/hosts/hosts.repository.js';
import { decodePlatformCursor, encodePlatformCursor } from '../dist/src/hosts/platform-cursor.js';

export async function startFloor(databaseUrl, poolSize = 10) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const query = async (sql, params) => (await pool.query(sql, params)).rows;

  const routes = [
    [
      /^\/api\/v1\/me$/,
      async (key) => ({ data: { user_id: key.user_id, key: { name: key.name, scopes: key.scopes } } }),
    ],
    [
      /^\/api\/v1\/subdomains\/new$/,
      async (_key, _m, params) => {
        const limit = Math.min(Number(params.get('limit') ?? 500), 2000);
        const since = new Date(Date.now() - 24 * 3600e3).toISOString();
        const before = params.get('before_ts')
          ? { ts: params.get('before_ts'), id: params.get('before_id') }
          : undefined;
        const { sql, params: values } = newFeedStatement({ since, limit, before });
        const found = await query(sql, values);
        const data = found.slice(0, limit);
        const last = data.at(-1);
        const next =
          found.length > limit && last ? { next_cursor: { before_ts: last.first_seen_at, before_id: last.id } } : {};
        return { data, meta: { since, count: data.length, limit, ...next } };
      },
    ],
    [
      /^\/api\/v1\/platforms\/([a-z]+)\/subdomains$/,
      async (_key, m, params) => {
        const limit = Math.min(Number(params.get('limit') ?? 1000), 10000);
        const cursor = params.get('cursor');
        const { sql, params: values } = platformPageStatement({
          platform: m[1],
          limit,
          after: cursor ? decodePlatformCursor(cursor) : undefined,
          activeOnly: true,
        });
        const found = await query(sql, values);
        const data = found.slice(0, limit);
        const last = data.at(-1);
        const nextCursor = found.length > limit && last ? encodePlatformCursor(last) : null;
        return { data, meta: { count: data.length, limit, next_cursor: nextCursor, has_more: nextCursor !== null } };
      },
    ],
  ];

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://floor');
      const route = routes.find(([pattern]) => pattern.test(url.pathname));
      if (!route) return void res.writeHead(404).end();
      const [key] = await query(KEY_LOOKUP_SQL, [hashToken(String(req.headers['x-api-key'] ?? ''))]);
      if (!key || key.revoked) return void res.writeHead(401).end();
      const body = JSON.stringify(await route[1](key, url.pathname.match(route[0]), url.searchParams));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}
