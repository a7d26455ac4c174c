// The Node floor: a bare node:http + pg server that, for each endpoint it knows, runs the very row statements
// the service builds (imported from the built service: token lookup included), decodes the rows and writes the
// same JSON with JSON.stringify. It is the best a plain Node process does on those queries; the service, which
// lets PostgreSQL render the rows as JSON, is measured against it. `statementsFor` gives the bench the same
// statements for its pgbench floor.
import { createServer } from 'node:http';
import pg from 'pg';
import { KEY_LOOKUP_SQL } from '../dist/src/auth/api-keys.repository.js';
import { hashToken } from '../dist/src/auth/token.js';
import {
  domainHostsStatements,
  domainNewStatement,
  newFeedStatement,
  platformPageStatement,
  searchStatement,
} from '../dist/src/hosts/hosts.repository.js';
import { decodePlatformCursor, encodePlatformCursor } from '../dist/src/hosts/platform-cursor.js';

const int = (value, fallback, max) => Math.min(Number(value ?? fallback), max);
const sinceOf = (params) => new Date(Date.now() - int(params.get('hours'), 24, 8760) * 3600e3).toISOString();

/** Per endpoint: the path pattern and what it runs and writes. `statements` are what the database is asked. */
const ROUTES = [
  {
    pattern: /^\/api\/v1\/me$/,
    statements: () => [],
    body: (key) => ({ data: { user_id: key.user_id, key: { name: key.name, scopes: key.scopes } } }),
  },
  {
    pattern: /^\/api\/v1\/subdomains\/new$/,
    statements: (_m, params) => {
      const before = params.get('before_ts') ? { ts: params.get('before_ts'), id: params.get('before_id') } : undefined;
      return [newFeedStatement({ since: sinceOf(params), limit: int(params.get('limit'), 500, 2000), before })];
    },
    body: (_key, _m, params, [found]) => {
      const limit = int(params.get('limit'), 500, 2000);
      const data = found.slice(0, limit);
      const last = data.at(-1);
      const next =
        found.length > limit && last ? { next_cursor: { before_ts: last.first_seen_at, before_id: last.id } } : {};
      return { data, meta: { since: sinceOf(params), count: data.length, limit, ...next } };
    },
  },
  {
    pattern: /^\/api\/v1\/subdomains\/search$/,
    statements: (_m, params) => [
      searchStatement(params.get('q'), int(params.get('limit'), 100, 1000), int(params.get('offset'), 0, 1e9)),
    ],
    body: (_key, _m, params, [data]) => ({
      data,
      meta: {
        q: params.get('q'),
        limit: int(params.get('limit'), 100, 1000),
        offset: int(params.get('offset'), 0, 1e9),
      },
    }),
  },
  {
    pattern: /^\/api\/v1\/domains\/([a-z0-9.-]+)\/subdomains$/,
    statements: (m, params) => {
      const { page, count } = domainHostsStatements({
        domain: m[1],
        filter: params.get('filter') ?? 'all',
        search: params.get('search') ?? undefined,
        limit: int(params.get('limit'), 100, 1000),
        offset: int(params.get('offset'), 0, 1e9),
      });
      return [page, count];
    },
    body: (_key, _m, params, [data, [count]]) => ({
      data,
      meta: {
        limit: int(params.get('limit'), 100, 1000),
        offset: int(params.get('offset'), 0, 1e9),
        total: count.total,
      },
    }),
  },
  {
    pattern: /^\/api\/v1\/domains\/([a-z0-9.-]+)\/subdomains\/new$/,
    statements: (m, params) => [domainNewStatement(m[1], sinceOf(params), int(params.get('limit'), 500, 2000))],
    body: (_key, _m, params, [data]) => ({
      data,
      meta: { since: sinceOf(params), count: data.length, limit: int(params.get('limit'), 500, 2000) },
    }),
  },
  {
    pattern: /^\/api\/v1\/platforms\/([a-z]+)\/subdomains$/,
    statements: (m, params) => {
      const cursor = params.get('cursor');
      return [
        platformPageStatement({
          platform: m[1],
          limit: int(params.get('limit'), 1000, 10000),
          after: cursor ? decodePlatformCursor(cursor) : undefined,
          activeOnly: true,
        }),
      ];
    },
    body: (_key, _m, params, [found]) => {
      const limit = int(params.get('limit'), 1000, 10000);
      const data = found.slice(0, limit);
      const last = data.at(-1);
      const nextCursor = found.length > limit && last ? encodePlatformCursor(last) : null;
      return { data, meta: { count: data.length, limit, next_cursor: nextCursor, has_more: nextCursor !== null } };
    },
  },
  {
    pattern: /^\/api\/v1\/platforms\/([a-z]+)\/subdomains\/new$/,
    statements: (m, params) => [
      newFeedStatement({ since: sinceOf(params), limit: int(params.get('limit'), 500, 2000), platform: m[1] }),
    ],
    body: (_key, _m, params, [found]) => {
      const limit = int(params.get('limit'), 500, 2000);
      const data = found.slice(0, limit);
      return { data, meta: { since: sinceOf(params), count: data.length, limit } };
    },
  },
];

/** The statements (the key lookup first) a request for `path` makes; null when the floor does not know it. */
export function statementsFor(path, token) {
  const url = new URL(path, 'http://floor');
  const route = ROUTES.find((r) => r.pattern.test(url.pathname));
  if (!route) return null;
  const key = { sql: KEY_LOOKUP_SQL, params: [hashToken(token)] };
  return [key, ...route.statements(url.pathname.match(route.pattern), url.searchParams)];
}

export async function startFloor(databaseUrl, poolSize = 10) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const query = async ({ sql, params }) => (await pool.query(sql, params)).rows;

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://floor');
      const route = ROUTES.find((r) => r.pattern.test(url.pathname));
      if (!route) return void res.writeHead(404).end();
      const [key] = await query({ sql: KEY_LOOKUP_SQL, params: [hashToken(String(req.headers['x-api-key'] ?? ''))] });
      if (!key || key.revoked) return void res.writeHead(401).end();
      const match = url.pathname.match(route.pattern);
      const results = await Promise.all(route.statements(match, url.searchParams).map(query));
      const body = JSON.stringify(route.body(key, match, url.searchParams, results));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    knows: (path) => ROUTES.some((r) => r.pattern.test(new URL(path, 'http://floor').pathname)),
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}
