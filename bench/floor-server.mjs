// The Node floor: a bare node:http + pg server that, for each endpoint it knows, runs the very row statements
// the service builds (imported from the built service: token lookup included), decodes the rows and writes the
// same JSON with JSON.stringify. It is the best a plain Node process does on those queries; the service, which
// lets PostgreSQL render the rows as JSON, is measured against it. `statementsFor` gives the bench the same
// statements for its pgbench floor.
import { createServer } from 'node:http';
import pg from 'pg';
import { KEY_LOOKUP_SQL } from '../dist/src/auth/api-keys.repository.js';
import { hashToken } from '../dist/src/auth/token.js';
import { preparedName } from '../dist/src/database/sql.js';
import {
  countedByCounters,
  domainHostsStatements,
  domainNewStatement,
  newFeedStatement,
  platformPageStatement,
  searchStatement,
} from '../dist/src/hosts/host-lists.sql.js';
import { decodePlatformCursor, encodePlatformCursor } from '../dist/src/hosts/platform-cursor.js';
import { PlatformHostsQuery } from '../dist/src/hosts/dto/host-queries.js';
import { FeedKnowledgeQuery, KnowledgeFilterQuery } from '../dist/src/hosts/model/knowledge-filter.query.js';
import {
  domainDetailStatement,
  domainListStatements,
  trackedDomainStatement,
} from '../dist/src/domains/domains.repository.js';
import { platformDomainsStatements, platformsStatement } from '../dist/src/platforms/platforms.repository.js';
import { scanListStatements, scanStatement, workerStatusStatement } from '../dist/src/discovery/scans.repository.js';
import {
  newCountsStatement,
  statsTotalsStatement,
  timeseriesStatement,
  topDomainsStatement,
} from '../dist/src/stats/stats.repository.js';

const int = (value, fallback, max) => Math.min(Number(value ?? fallback), max);
const page = (params, limit, max) => ({
  limit: int(params.get('limit'), limit, max),
  offset: int(params.get('offset'), 0, 1e9),
});
const SCAN_INTERVAL_HOURS = 24;
// The service's own lookup of a tracked domain by name (DomainsService.requireTracked).
const domainByName = trackedDomainStatement;
const sinceOf = (params) => new Date(Date.now() - int(params.get('hours'), 24, 8760) * 3600e3).toISOString();

// What the service's queries ask of host knowledge when the request names nothing (the query classes' own
// defaults): lists and search hide out-of-scope hosts, the feeds wildcard echoes too. The floor's statements are
// then the service's for the same request, hiding checks included.
const defaultsOf = (Query) => {
  const { wildcard, scope } = new Query();
  return { wildcard, scope };
};
const LIST_KNOWLEDGE = defaultsOf(KnowledgeFilterQuery);
const FEED_KNOWLEDGE = defaultsOf(FeedKnowledgeQuery);
const PLATFORM_SCOPE = new PlatformHostsQuery().scope;

/** A domain's hosts as the service lists them: its page, and its count unless the domain's counters give it. */
function domainHostsOptions(params, domain) {
  return {
    domain,
    filter: params.get('filter') ?? 'all',
    search: params.get('search') ?? undefined,
    knowledge: LIST_KNOWLEDGE,
    limit: int(params.get('limit'), 100, 1000),
    offset: int(params.get('offset'), 0, 1e9),
  };
}

function domainHosts(params, domain) {
  const options = domainHostsOptions(params, domain);
  const { page, count } = domainHostsStatements(options);
  return countedByCounters(options) === null ? [page, count] : [page];
}

/** Per endpoint: the path pattern and what it runs and writes. `statements` are what the database is asked. */
const ROUTES = [
  {
    // The API index: public and without SQL, so the floor writes the document the service gave it at start.
    pattern: /^\/api\/v1\/?$/,
    public: true,
    statements: () => [],
    body: (_key, _m, _params, _rows, index) => index,
  },
  {
    pattern: /^\/api\/v1\/platforms$/,
    statements: () => [platformsStatement()],
    body: (_key, _m, _params, [data]) => ({ data }),
  },
  {
    pattern: /^\/api\/v1\/platforms\/([a-z]+)$/,
    statements: (m) => [platformsStatement(m[1])],
    body: (_key, _m, _params, [[platform]]) => ({ data: platform }),
  },
  {
    pattern: /^\/api\/v1\/platforms\/([a-z]+)\/domains$/,
    statements: (m, params) => {
      const { limit, offset } = page(params, 200, 1000);
      const { page: rows, count } = platformDomainsStatements(m[1], limit, offset);
      return [rows, count];
    },
    body: (_key, _m, params, [data, [count]]) => ({ data, meta: { ...page(params, 200, 1000), total: count.total } }),
  },
  {
    pattern: /^\/api\/v1\/domains$/,
    statements: (_m, params) => {
      const { limit, offset } = page(params, 100, 1000);
      const enabled = params.get('enabled');
      const filters = {
        search: params.get('search') ?? undefined,
        platform: params.get('platform') ?? undefined,
        enabled: enabled === null ? undefined : enabled === 'true',
      };
      const { page: rows, count } = domainListStatements(filters, params.get('sort') ?? 'domain', limit, offset);
      return [rows, count];
    },
    body: (_key, _m, params, [data, [count]]) => ({ data, meta: { ...page(params, 100, 1000), total: count.total } }),
  },
  {
    pattern: /^\/api\/v1\/domains\/([a-z0-9.-]+)$/,
    statements: (m) => [domainDetailStatement(m[1])],
    body: (_key, _m, _params, [[domain]]) => ({ data: domain }),
  },
  {
    pattern: /^\/api\/v1\/scans$/,
    // A domain filter is part of the list's statement, as in the service (which looks the domain up only when
    // nothing matched, to answer 404 for one not tracked: never on the bench's domains).
    statements: (_m, params) => {
      const { limit, offset } = page(params, 50, 500);
      const filters = {
        domain: params.get('domain') ?? undefined,
        platform: params.get('platform') ?? undefined,
        status: params.get('status') ?? undefined,
      };
      const { page: rows, count } = scanListStatements(filters, limit, offset);
      return [rows, count];
    },
    body: (_key, _m, params, [data, [count]]) => ({ data, meta: { ...page(params, 50, 500), total: count.total } }),
  },
  {
    pattern: /^\/api\/v1\/scans\/status$/,
    statements: () => [workerStatusStatement(SCAN_INTERVAL_HOURS)],
    body: (_key, _m, _params, [[status]]) => ({ data: status }),
  },
  {
    pattern: /^\/api\/v1\/scans\/([0-9a-f-]{36})$/,
    statements: (m) => [scanStatement(m[1])],
    body: (_key, _m, _params, [[scan]]) => ({ data: scan }),
  },
  {
    pattern: /^\/api\/v1\/stats$/,
    statements: () => [statsTotalsStatement(), newCountsStatement(), platformsStatement()],
    body: (_key, _m, _params, [[totals], [fresh], platforms]) => ({ data: { totals, new: fresh, platforms } }),
  },
  {
    pattern: /^\/api\/v1\/stats\/top-domains$/,
    statements: (_m, params) => [topDomainsStatement(sinceOf(params), int(params.get('limit'), 20, 200))],
    body: (_key, _m, params, [data]) => ({
      data,
      meta: { since: sinceOf(params), limit: int(params.get('limit'), 20, 200) },
    }),
  },
  {
    pattern: /^\/api\/v1\/stats\/timeseries$/,
    statements: (_m, params) => [timeseriesStatement(params.get('bucket') ?? 'hour', sinceOf(params))],
    body: (_key, _m, params, [data]) => ({
      data,
      meta: { bucket: params.get('bucket') ?? 'hour', since: sinceOf(params), count: data.length },
    }),
  },
  {
    pattern: /^\/api\/v1\/me$/,
    statements: () => [],
    body: (key) => ({ data: { user_id: key.user_id, key: { name: key.name, scopes: key.scopes } } }),
  },
  {
    pattern: /^\/api\/v1\/subdomains\/new$/,
    statements: (_m, params) => {
      const before = params.get('before_ts') ? { ts: params.get('before_ts'), id: params.get('before_id') } : undefined;
      const limit = int(params.get('limit'), 500, 2000);
      return [newFeedStatement({ since: sinceOf(params), limit, before, knowledge: FEED_KNOWLEDGE })];
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
      searchStatement(
        params.get('q'),
        int(params.get('limit'), 100, 1000),
        int(params.get('offset'), 0, 1e9),
        LIST_KNOWLEDGE,
      ),
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
    // The domain is looked up first, as the service does; the floor then filters by its id.
    statements: (m) => [domainByName(m[1])],
    then: (_m, params, [[domain]]) => domainHosts(params, domain),
    body: (_key, _m, params, [data, counted], _index, [[domain]]) => ({
      data,
      meta: {
        limit: int(params.get('limit'), 100, 1000),
        offset: int(params.get('offset'), 0, 1e9),
        total: counted?.[0].total ?? countedByCounters(domainHostsOptions(params, domain)),
      },
    }),
  },
  {
    pattern: /^\/api\/v1\/domains\/([a-z0-9.-]+)\/subdomains\/new$/,
    statements: (m) => [domainByName(m[1])],
    then: (_m, params, [[domain]]) => [
      domainNewStatement(domain, sinceOf(params), int(params.get('limit'), 500, 2000), FEED_KNOWLEDGE),
    ],
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
          scope: PLATFORM_SCOPE,
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
      newFeedStatement({
        since: sinceOf(params),
        limit: int(params.get('limit'), 500, 2000),
        platform: m[1],
        knowledge: FEED_KNOWLEDGE,
      }),
    ],
    body: (_key, _m, params, [found]) => {
      const limit = int(params.get('limit'), 500, 2000);
      const data = found.slice(0, limit);
      return { data, meta: { since: sinceOf(params), count: data.length, limit } };
    },
  },
];

/** The floor's queries, as the service's connections run them: no JIT, prepared where the service prepares. */
function floorPool(databaseUrl, poolSize) {
  // The service's own connection settings (dataSourceOptions): no JIT.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, options: '-c jit=off' });
  // An idle connection ended by the server (the bench dropping its database) is no failure of the floor.
  pool.on('error', () => undefined);
  // A statement the service prepares on each connection is prepared here too (see Statement.prepare).
  const query = async ({ sql, params, prepare }) =>
    (await pool.query({ text: sql, values: params, name: prepare ? preparedName(sql) : undefined })).rows;
  return { pool, query };
}

const routeOf = (url) => ROUTES.find((r) => r.pattern.test(url.pathname));

/**
 * What the floor asks, without serving: which paths it knows, and the statements (the key lookup first) a request
 * for `path` makes, for pgbench. A second round (`then`, as a domain's hosts have) gets the first round's rows from
 * this database, over one connection of its own.
 */
export function floorStatements(databaseUrl) {
  const { pool, query } = floorPool(databaseUrl, 1);
  return {
    knows: (path) => routeOf(new URL(path, 'http://floor')) !== undefined,
    async statementsFor(path, token) {
      const url = new URL(path, 'http://floor');
      const route = routeOf(url);
      const match = url.pathname.match(route.pattern);
      const first = route.statements(match, url.searchParams);
      const second = (route.then && route.then(match, url.searchParams, await Promise.all(first.map(query)))) ?? [];
      const key = route.public ? [] : [{ sql: KEY_LOOKUP_SQL, params: [hashToken(token)], prepare: true }];
      return [...key, ...first, ...second];
    },
    close: () => pool.end(),
  };
}

export async function startFloor(databaseUrl, poolSize = 10, index = {}) {
  const { pool, query } = floorPool(databaseUrl, poolSize);
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://floor');
      const route = routeOf(url);
      if (!route) return void res.writeHead(404).end();
      const [key] = route.public
        ? [{}]
        : await query({
            sql: KEY_LOOKUP_SQL,
            params: [hashToken(String(req.headers['x-api-key'] ?? ''))],
            prepare: true,
          });
      if (!key || key.revoked || key.owner_disabled) return void res.writeHead(401).end();
      const match = url.pathname.match(route.pattern);
      const first = await Promise.all(route.statements(match, url.searchParams).map(query));
      // A second round, when the route has one (null: none for these parameters), replaces the first's rows; the
      // body is given those too.
      const second = route.then?.(match, url.searchParams, first);
      const results = second ? await Promise.all(second.map(query)) : first;
      const body = JSON.stringify(route.body(key, match, url.searchParams, results, index, first));
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
