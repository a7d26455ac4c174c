// The independent floor: a bare node:http + pg server for the JSON read endpoints bench/api.mjs measures, with
// SQL written from the API contract (/api/v1) and the schema alone — nothing is imported from the service. Where
// bench/floor-server.mjs runs the service's own statements (so it measures what the framework costs, and a slow
// plan of the service slows both sides alike), this one runs what a careful engineer would write for each
// endpoint, on its own copy of the data (CREATE DATABASE … TEMPLATE of the bench database) with the indexes it
// wants, so a missing index or a poor plan of the service shows as a gap.
//
// Authentication: the `x-api-key` (or `Authorization: Bearer`) token's SHA-256, hex, looked up in
// api_keys.key_hash (the UNIQUE index), refused when revoked, when its owner (users.id) is disabled, or without
// the `read` scope. Response bodies carry the contract's fields; host rows are lean, as the service's are by
// default: the contract's fields and the cheap ones the hosts table holds (id, sources), and in_scope, which follows
// from scope= (read from host_intel only with scope=all). `fields=` adds what is known of each host (dns, http,
// takeover, wildcard, ips, cname, status, title: the same content as the service's), read from host_intel by the
// floor's own statements for the page's rows only. Bodies need not be byte-identical.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

// Timestamps as PostgreSQL writes them (UTC: the pool sets TimeZone; trailing zeros of the microseconds left out),
// turned into ISO 8601 with all six digits of the microseconds without a Date round trip, so a cursor keeps them.
const iso = (text) => {
  if (text === null) return null;
  const [seconds, fraction = ''] = text.slice(0, -3).split('.');
  return `${seconds.replace(' ', 'T')}.${fraction.padEnd(6, '0')}Z`;
};
const TIMESTAMPTZ = 1184;

// The floor's own indexes, made on its copy of the data. Each is what the statements below want to read.
const INDEXES = [
  // Domain lists in every sort the contract names, ties broken by name; per platform by size.
  'CREATE INDEX IF NOT EXISTS floor_domains_total_idx ON domains (total_subdomains DESC, domain)',
  'CREATE INDEX IF NOT EXISTS floor_domains_new_idx ON domains (new_subdomains_last_scan DESC, domain)',
  'CREATE INDEX IF NOT EXISTS floor_domains_scanned_idx ON domains (last_scanned_at DESC NULLS LAST, domain)',
  'CREATE INDEX IF NOT EXISTS floor_domains_platform_total_idx ON domains (platform_slug, total_subdomains DESC, domain)',
  // A domain's hosts newest first, with what a page shows: index-only pages and counts.
  `CREATE INDEX IF NOT EXISTS floor_hosts_domain_new_idx
     ON hosts (domain_id, first_seen_at DESC, id DESC) INCLUDE (host, is_active, sources)`,
  // Every host newest first (the feeds' keyset), with what a feed row shows.
  `CREATE INDEX IF NOT EXISTS floor_hosts_new_idx
     ON hosts (first_seen_at DESC, id DESC) INCLUDE (domain_id, host, is_active, sources)`,
  // A platform's walk: a domain's active hosts by name.
  'CREATE INDEX IF NOT EXISTS floor_hosts_active_name_idx ON hosts (domain_id, host) INCLUDE (sources) WHERE is_active',
  // Substring search over every host.
  'CREATE INDEX IF NOT EXISTS floor_hosts_trgm_idx ON hosts USING gin (host gin_trgm_ops)',
  // Scans: newest first by status and by domain; finished in the last minutes.
  'CREATE INDEX IF NOT EXISTS floor_scans_status_idx ON scans (status, started_at DESC, id DESC)',
  'CREATE INDEX IF NOT EXISTS floor_scans_domain_idx ON scans (domain_id, started_at DESC, id DESC)',
  'CREATE INDEX IF NOT EXISTS floor_scans_finished_idx ON scans (finished_at)',
  // The few hosts a list or a feed hides.
  'CREATE INDEX IF NOT EXISTS floor_host_intel_out_idx ON host_intel (host_id) WHERE out_of_scope',
  'CREATE INDEX IF NOT EXISTS floor_host_intel_hidden_idx ON host_intel (host_id) WHERE wildcard OR out_of_scope',
];

// The sources in the order of their bits (SOURCE_BITS in src/hosts/model/host-sources.ts).
const SOURCES = ['ct', 'crtsh', 'dns', 'command', 'permute'];
const sourcesOf = (bits) => SOURCES.filter((_, i) => bits & (1 << i));

// What a host row carries on request (fields=, a comma list, each name once in the order first named): its key after
// the row's own, in the order asked. The objects are what the host's page shows (`dns`, `http`, `takeover`,
// `wildcard`), the flat values what a table shows (`ips`: A then AAAA, `cname`, `status`, `title`). Each reads the
// host_intel columns it names, joined to a page's rows only, and only when asked for; null (or empty arrays, or
// false) when nothing is known.
const FIELD_COLUMNS = {
  dns: ['dns_status', 'a', 'aaaa', 'cname', 'resolved_at'],
  http: [
    'listening',
    'scheme',
    'port',
    'http_status',
    'final_url',
    'title',
    'server',
    'content_length',
    'tls_subject',
    'tls_issuer',
    'tls_not_after',
    'probed_at',
  ],
  takeover: ['dns_takeover', 'http_takeover'],
  wildcard: ['wildcard'],
  ips: ['a', 'aaaa'],
  cname: ['cname'],
  status: ['http_status'],
  title: ['title'],
};
const FIELDS = Object.keys(FIELD_COLUMNS);
/** Where no redirect moved it, a probe's final URL is where it started: https://host/, http://host:8080/. */
const startUrl = (r) =>
  `${r.scheme}://${r.host}${(r.scheme === 'https' && r.port === 443) || (r.scheme === 'http' && r.port === 80) ? '' : `:${r.port}`}/`;
const FIELD_VALUES = {
  dns: (r) =>
    r.dns_status === null
      ? null
      : {
          status: r.dns_status,
          a: r.a ?? [],
          aaaa: r.aaaa ?? [],
          cname: r.cname ?? [],
          resolved_at: iso(r.resolved_at),
        },
  http: (r) =>
    r.listening === null
      ? null
      : {
          listening: r.listening,
          scheme: r.scheme,
          port: r.port,
          status: r.http_status,
          final_url: r.final_url ?? (r.scheme === null || r.port === null ? null : startUrl(r)),
          title: r.title,
          server: r.server,
          content_length: r.content_length === null ? null : Number(r.content_length),
          tls:
            r.tls_subject === null
              ? null
              : { subject: r.tls_subject, issuer: r.tls_issuer, not_after: iso(r.tls_not_after) },
          probed_at: iso(r.probed_at),
        },
  // Whether the listed service is one it flags vulnerable is how the verdict was reached, not part of it.
  takeover: (r) => {
    const verdict = r.dns_takeover ?? r.http_takeover;
    if (verdict === null) return null;
    const shown = { ...verdict };
    delete shown.vulnerable;
    return shown;
  },
  wildcard: (r) => r.wildcard ?? false,
  ips: (r) => [...(r.a ?? []), ...(r.aaaa ?? [])],
  cname: (r) => r.cname ?? [],
  status: (r) => r.http_status,
  title: (r) => r.title,
};

/**
 * What a host list is asked to show: `fields` (see FIELD_COLUMNS) and `scope` (in: hosts no exclusion rule names,
 * the default; out: those it names; all: both). Unknown names are refused, listing the valid ones.
 */
function shownOf(params) {
  const scope = params.get('scope') ?? 'in';
  if (!['in', 'out', 'all'].includes(scope)) throw badQuery('scope must be one of: in, out, all');
  const raw = params.get('fields');
  const fields = raw === null ? [] : [...new Set(raw.split(',').map((f) => f.trim()))];
  if (fields.some((f) => !FIELDS.includes(f))) throw badQuery(`fields must be a comma list of: ${FIELDS.join(', ')}`);
  return { fields, scope };
}

/**
 * The host_intel read of a page `p` (with p.id) for what is shown: the columns and the LEFT JOIN, or nothing at
 * all when no field is asked for and in_scope follows from the scope.
 */
function knowledgeJoin({ fields, scope }) {
  const columns = new Set(fields.flatMap((f) => FIELD_COLUMNS[f]));
  if (scope === 'all') columns.add('out_of_scope');
  if (columns.size === 0) return { columns: '', join: '' };
  return {
    columns: [...columns].map((c) => `, k.${c}`).join(''),
    join: 'LEFT JOIN host_intel k ON k.host_id = p.id',
  };
}

/** A host row: its own keys (`row`), then in_scope, then each field asked for from the page's row `r`. */
function shownRow(row, r, { fields, scope }) {
  row.in_scope = scope === 'all' ? !r.out_of_scope : scope === 'in';
  for (const f of fields) row[f] = FIELD_VALUES[f](r);
  return row;
}

// Lists and search leave out the hosts out of scope (or show only them, or both); the new-host feeds also leave
// out wildcard echoes. Each is a check of the few hosts floor_host_intel_*_idx holds.
const flagged = (flags) => `EXISTS (SELECT 1 FROM host_intel x WHERE x.host_id = h.id AND (${flags}))`;
const LISTED = {
  in: [`NOT ${flagged('x.out_of_scope')}`],
  out: [flagged('x.out_of_scope')],
  all: [],
};
const FED = {
  in: [`NOT ${flagged('x.wildcard OR x.out_of_scope')}`],
  out: [flagged('x.out_of_scope'), `NOT ${flagged('x.wildcard')}`],
  all: [`NOT ${flagged('x.wildcard')}`],
};

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
const notFound = (what) => new HttpError(404, 'not_found', `${what} not found`);
const badQuery = (message) => new HttpError(400, 'invalid_query', message);

const intParam = (params, name, fallback, max) => {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw badQuery(`${name} must be a non-negative integer`);
  return Math.min(n, max);
};
const pageOf = (params, limit, max) => ({
  limit: Math.max(1, intParam(params, 'limit', limit, max)),
  offset: intParam(params, 'offset', 0, 1e9),
});
/** The window's start: `since` when given, else `hours` (default 24) before now. */
const sinceOf = (params) => {
  const since = params.get('since');
  if (since !== null) {
    const t = Date.parse(since);
    if (Number.isNaN(t)) throw badQuery('since must be an ISO 8601 timestamp');
    return new Date(t).toISOString();
  }
  return new Date(Date.now() - intParam(params, 'hours', 24, 24 * 366 * 5) * 3600e3).toISOString();
};
const dayAgo = () => new Date(Date.now() - 24 * 3600e3).toISOString();
/** A LIKE pattern matching `text` anywhere (names are lowercase). */
const contains = (text) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const DOMAIN = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const SLUG = /^[a-z0-9-]+$/;

// New hosts since a moment, per platform, exact: whole hours from new_host_counts, whole minutes of the first
// partial hour from new_host_minutes, the first partial minute from the hosts themselves (floor_hosts_new_idx).
// $1 is the moment. Rows: platform_slug, n.
const NEW_PER_PLATFORM = `
  WITH b AS (SELECT $1::timestamptz AS since,
                    date_trunc('minute', $1::timestamptz) + interval '1 minute' AS m0,
                    date_trunc('hour', $1::timestamptz) + interval '1 hour' AS h0)
  SELECT platform_slug, sum(n)::bigint AS n FROM (
    SELECT c.platform_slug, c.n FROM new_host_counts c, b WHERE c.hour >= b.h0
    UNION ALL
    SELECT m.platform_slug, m.n FROM new_host_minutes m, b WHERE m.minute >= b.m0 AND m.minute < b.h0
    UNION ALL
    SELECT d.platform_slug, 1 FROM hosts h JOIN domains d ON d.id = h.domain_id, b
     WHERE h.first_seen_at >= b.since AND h.first_seen_at < b.m0
  ) x GROUP BY platform_slug`;

// Platforms with their counts: domains and hosts from the domains' counters, new in 24 h as above.
const PLATFORMS_SQL = `
  WITH fresh AS (${NEW_PER_PLATFORM}),
       sizes AS (SELECT platform_slug, count(*) AS domain_count, sum(total_subdomains) AS subdomain_count
                   FROM domains WHERE $2::text IS NULL OR platform_slug = $2 GROUP BY platform_slug)
  SELECT p.slug, p.name, coalesce(s.domain_count, 0)::int AS domain_count,
         coalesce(s.subdomain_count, 0)::bigint AS subdomain_count, coalesce(f.n, 0)::bigint AS new_24h
    FROM platforms p LEFT JOIN sizes s ON s.platform_slug = p.slug LEFT JOIN fresh f ON f.platform_slug = p.slug
   WHERE $2::text IS NULL OR p.slug = $2
   ORDER BY p.slug`;
const platformOf = (r) => ({
  slug: r.slug,
  name: r.name,
  domain_count: r.domain_count,
  subdomain_count: Number(r.subdomain_count),
  new_24h: Number(r.new_24h),
});

const DOMAIN_COLUMNS = `d.domain, d.platform_slug AS platform, d.program, d.enabled, d.total_subdomains,
  d.new_subdomains_last_scan, d.last_scanned_at, d.last_scan_status`;
const domainOf = (r) => ({
  domain: r.domain,
  platform: r.platform,
  program: r.program,
  enabled: r.enabled,
  total_subdomains: r.total_subdomains,
  new_subdomains_last_scan: r.new_subdomains_last_scan,
  last_scanned_at: iso(r.last_scanned_at),
  last_scan_status: r.last_scan_status,
});
const SORTS = {
  domain: 'd.domain',
  total_subdomains: 'd.total_subdomains DESC, d.domain',
  new_subdomains_last_scan: 'd.new_subdomains_last_scan DESC, d.domain',
  last_scanned_at: 'd.last_scanned_at DESC NULLS LAST, d.domain',
};

const SCAN_COLUMNS = `s.id, d.domain, d.platform_slug AS platform, s.trigger, s.status, s.found_count, s.new_count,
  s.reactivated_count, s.inactive_count, s.dropped_count, s.error, s.started_at, s.finished_at`;
const scanOf = (r) => ({
  id: r.id,
  domain: r.domain,
  platform: r.platform,
  trigger: r.trigger,
  status: r.status,
  found_count: r.found_count,
  new_count: r.new_count,
  reactivated_count: r.reactivated_count,
  inactive_count: r.inactive_count,
  dropped_count: r.dropped_count,
  error: r.error,
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
  duration_ms: r.finished_at ? Date.parse(iso(r.finished_at)) - Date.parse(iso(r.started_at)) : null,
});

// The platform feed's cursor, as the service issues it (the bench walks the service's pages and replays them
// here): "c1.<base64url of JSON [domain, host]>.<12 characters of a salted SHA-256>".
const cursorSum = (payload) =>
  createHash('sha256').update(`subdomain-monitor:platform-cursor:${payload}`).digest('base64url').slice(0, 12);
const encodeCursor = (domain, host) => {
  const payload = Buffer.from(JSON.stringify([domain, host])).toString('base64url');
  return `c1.${payload}.${cursorSum(payload)}`;
};
function decodeCursor(cursor) {
  const [version, payload, sum, ...rest] = cursor.split('.');
  if (version !== 'c1' || !payload || rest.length || cursorSum(payload) !== sum) throw badQuery('bad cursor');
  const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => typeof v === 'string'))
    throw badQuery('bad cursor');
  return value;
}

const INDEX = {
  data: {
    version: '1',
    endpoints: [
      'GET /',
      'GET /me',
      'GET /openapi.json',
      'GET /domains',
      'GET /domains/{domain}',
      'GET /domains/{domain}/subdomains',
      'GET /domains/{domain}/subdomains/new',
      'GET /subdomains/new',
      'GET /subdomains/search',
      'GET /platforms',
      'GET /platforms/{slug}',
      'GET /platforms/{slug}/domains',
      'GET /platforms/{slug}/subdomains',
      'GET /platforms/{slug}/subdomains/new',
      'GET /scans',
      'GET /scans/{id}',
      'GET /scans/status',
      'POST /scans',
      'POST /scans/rescan-all',
      'GET /stats',
      'GET /stats/top-domains',
      'GET /stats/timeseries',
      'GET /export',
    ],
  },
};

/** Per endpoint: the path pattern and its handler (q: run one statement, rows back). */
const ROUTES = [
  { pattern: /^\/?$/, public: true, handle: () => INDEX },
  {
    pattern: /^\/me$/,
    handle: (_q, _m, _p, key) => ({ data: { user_id: key.user_id, key: { name: key.name, scopes: key.scopes } } }),
  },
  {
    pattern: /^\/domains$/,
    // One statement: the filtered count and the page joined to it (a page past the end still has its total).
    async handle(q, _m, params) {
      const { limit, offset } = pageOf(params, 100, 1000);
      const sort = SORTS[params.get('sort') ?? 'domain'];
      if (!sort) throw badQuery('unknown sort');
      const enabled = params.get('enabled');
      const values = [];
      const where = [];
      const search = params.get('search');
      if (search) where.push(`d.domain LIKE $${values.push(contains(search))}`);
      if (params.get('platform')) where.push(`d.platform_slug = $${values.push(params.get('platform'))}`);
      if (enabled !== null) where.push(`d.enabled = $${values.push(enabled === 'true')}`);
      const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const rows = await q(
        `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM domains d ${filter}) t
           LEFT JOIN LATERAL (SELECT ${DOMAIN_COLUMNS} FROM domains d ${filter}
                               ORDER BY ${sort} LIMIT ${limit} OFFSET ${offset}) p ON true`,
        values,
      );
      return {
        data: rows.filter((r) => r.domain !== null).map(domainOf),
        meta: { limit, offset, total: rows[0].total },
      };
    },
  },
  {
    pattern: /^\/domains\/([^/]+)$/,
    // The domain with its stats: new in 24 h and 7 d from the domain's hourly rollup for whole hours and its
    // hosts for the first partial hour (floor_hosts_domain_new_idx, index only).
    async handle(q, m) {
      if (!DOMAIN.test(m[1])) throw new HttpError(400, 'invalid_domain', 'not a root domain');
      const [r] = await q(
        `SELECT ${DOMAIN_COLUMNS}, d.active_subdomains,
                (SELECT coalesce(sum(n), 0) FROM domain_new_host_counts c
                  WHERE c.domain_id = d.id AND c.hour >= date_trunc('hour', now() - interval '24 hours') + interval '1 hour')
                + (SELECT count(*) FROM hosts h WHERE h.domain_id = d.id AND h.first_seen_at >= now() - interval '24 hours'
                      AND h.first_seen_at < date_trunc('hour', now() - interval '24 hours') + interval '1 hour') AS new_24h,
                (SELECT coalesce(sum(n), 0) FROM domain_new_host_counts c
                  WHERE c.domain_id = d.id AND c.hour >= date_trunc('hour', now() - interval '7 days') + interval '1 hour')
                + (SELECT count(*) FROM hosts h WHERE h.domain_id = d.id AND h.first_seen_at >= now() - interval '7 days'
                      AND h.first_seen_at < date_trunc('hour', now() - interval '7 days') + interval '1 hour') AS new_7d
           FROM domains d WHERE d.domain = $1`,
        [m[1]],
      );
      if (!r) throw notFound('domain');
      return {
        data: {
          ...domainOf(r),
          stats: {
            total: r.total_subdomains,
            new_24h: Number(r.new_24h),
            new_7d: Number(r.new_7d),
            active: r.active_subdomains,
            inactive: r.total_subdomains - r.active_subdomains,
          },
        },
      };
    },
  },
  {
    pattern: /^\/domains\/([^/]+)\/subdomains$/,
    // The domain first (its id and counters), then one statement: the page newest first and, for a search, the
    // count of its matches (the trigram index with the domain, or the domain's walk: the planner knows its size).
    async handle(q, m, params) {
      if (!DOMAIN.test(m[1])) throw new HttpError(400, 'invalid_domain', 'not a root domain');
      const { limit, offset } = pageOf(params, 100, 1000);
      const filter = params.get('filter') ?? 'all';
      if (!['all', 'new', 'inactive'].includes(filter)) throw badQuery('unknown filter');
      const search = params.get('search');
      const shown = shownOf(params);
      const [d] = await q('SELECT id, total_subdomains, active_subdomains FROM domains WHERE domain = $1', [m[1]]);
      if (!d) throw notFound('domain');
      const values = [d.id];
      const where = ['h.domain_id = $1', ...LISTED[shown.scope]];
      if (filter === 'inactive') where.push('NOT h.is_active');
      if (filter === 'new') where.push(`h.first_seen_at >= now() - interval '24 hours'`);
      if (search) where.push(`h.host LIKE $${values.push(contains(search))}`);
      const cond = where.join(' AND ');
      // Without a search the domain's counters give the total (the contract's live counter); else count.
      const counted = search || filter === 'new';
      const k = knowledgeJoin(shown);
      const rows = await q(
        `SELECT p.*${k.columns}${counted ? ', t.total' : ''}
           FROM ${counted ? `(SELECT count(*)::int AS total FROM hosts h WHERE ${cond}) t LEFT JOIN LATERAL` : ''}
                (SELECT h.id, h.host, h.first_seen_at, h.is_active, h.sources FROM hosts h WHERE ${cond}
                  ORDER BY h.first_seen_at DESC, h.id DESC LIMIT ${limit} OFFSET ${offset}) p ${counted ? 'ON true' : ''}
           ${k.join}
          ORDER BY p.first_seen_at DESC, p.id DESC`,
        values,
      );
      const total = counted
        ? (rows[0]?.total ?? 0)
        : filter === 'inactive'
          ? d.total_subdomains - d.active_subdomains
          : d.total_subdomains;
      return {
        data: rows
          .filter((r) => r.id !== null)
          .map((r) =>
            shownRow(
              {
                id: r.id,
                host: r.host,
                first_seen_at: iso(r.first_seen_at),
                is_active: r.is_active,
                sources: sourcesOf(r.sources),
              },
              r,
              shown,
            ),
          ),
        meta: { limit, offset, total },
      };
    },
  },
  {
    pattern: /^\/domains\/([^/]+)\/subdomains\/new$/,
    // The domain's hosts first seen since, newest first: floor_hosts_domain_new_idx, index only.
    async handle(q, m, params) {
      if (!DOMAIN.test(m[1])) throw new HttpError(400, 'invalid_domain', 'not a root domain');
      const limit = Math.max(1, intParam(params, 'limit', 500, 2000));
      const since = sinceOf(params);
      const shown = shownOf(params);
      const k = knowledgeJoin(shown);
      const rows = await q(
        `SELECT p.*${k.columns}
           FROM (SELECT id FROM domains WHERE domain = $1) d
           LEFT JOIN LATERAL (SELECT h.id, h.host, h.first_seen_at, h.sources FROM hosts h
                               WHERE h.domain_id = d.id AND h.first_seen_at >= $2 AND ${FED[shown.scope].join(' AND ')}
                               ORDER BY h.first_seen_at DESC, h.id DESC LIMIT ${limit}) p ON true
           ${k.join}
          ORDER BY p.first_seen_at DESC, p.id DESC`,
        [m[1], since],
      );
      if (!rows.length) throw notFound('domain');
      const data = rows
        .filter((r) => r.id !== null)
        .map((r) =>
          shownRow(
            { id: r.id, host: r.host, first_seen_at: iso(r.first_seen_at), sources: sourcesOf(r.sources) },
            r,
            shown,
          ),
        );
      return { data, meta: { since, count: data.length, limit } };
    },
  },
  {
    pattern: /^\/subdomains\/new$/,
    // Every host first seen since, newest first, on the keyset (first_seen_at, id): floor_hosts_new_idx, one
    // row more than the page to tell whether another follows.
    async handle(q, _m, params) {
      const limit = Math.max(1, intParam(params, 'limit', 500, 2000));
      const since = sinceOf(params);
      const shown = shownOf(params);
      const values = [since];
      const where = ['h.first_seen_at >= $1', ...FED[shown.scope]];
      const beforeTs = params.get('before_ts');
      const beforeId = params.get('before_id');
      if (beforeTs !== null || beforeId !== null) {
        if (!beforeTs || !/^\d+$/.test(beforeId ?? '') || Number.isNaN(Date.parse(beforeTs)))
          throw badQuery('before_ts and before_id go together');
        where.push(
          `(h.first_seen_at, h.id) < ($${values.push(beforeTs)}::timestamptz, $${values.push(beforeId)}::bigint)`,
        );
      }
      const k = knowledgeJoin(shown);
      const rows = await q(
        `SELECT p.*, d.domain${k.columns}
           FROM (SELECT h.id, h.domain_id, h.host, h.first_seen_at, h.sources FROM hosts h WHERE ${where.join(' AND ')}
                  ORDER BY h.first_seen_at DESC, h.id DESC LIMIT ${limit + 1}) p
           JOIN domains d ON d.id = p.domain_id
           ${k.join}
          ORDER BY p.first_seen_at DESC, p.id DESC`,
        values,
      );
      const data = rows.slice(0, limit).map((r) =>
        shownRow(
          {
            id: r.id,
            host: r.host,
            domain: r.domain,
            first_seen_at: iso(r.first_seen_at),
            sources: sourcesOf(r.sources),
          },
          r,
          shown,
        ),
      );
      const last = data.at(-1);
      const next = rows.length > limit ? { next_cursor: { before_ts: last.first_seen_at, before_id: last.id } } : {};
      return { data, meta: { since, count: data.length, limit, ...next } };
    },
  },
  {
    pattern: /^\/subdomains\/search$/,
    // Substring matches over every host, newest first: the planner picks the trigram index (rare terms) or the
    // newest-first walk that stops at the page (common ones).
    async handle(q, _m, params) {
      const text = params.get('q') ?? '';
      if (text.length < 2) throw badQuery('q needs at least 2 characters');
      const { limit, offset } = pageOf(params, 100, 1000);
      const shown = shownOf(params);
      const k = knowledgeJoin(shown);
      const rows = await q(
        `SELECT p.*, d.domain${k.columns}
           FROM (SELECT h.id, h.domain_id, h.host, h.first_seen_at, h.is_active, h.sources FROM hosts h
                  WHERE ${['h.host LIKE $1', ...LISTED[shown.scope]].join(' AND ')}
                  ORDER BY h.first_seen_at DESC, h.id DESC LIMIT ${limit} OFFSET ${offset}) p
           JOIN domains d ON d.id = p.domain_id
           ${k.join}
          ORDER BY p.first_seen_at DESC, p.id DESC`,
        [contains(text)],
      );
      return {
        data: rows.map((r) =>
          shownRow(
            {
              id: r.id,
              host: r.host,
              domain: r.domain,
              first_seen_at: iso(r.first_seen_at),
              is_active: r.is_active,
              sources: sourcesOf(r.sources),
            },
            r,
            shown,
          ),
        ),
        meta: { q: text, limit, offset },
      };
    },
  },
  {
    pattern: /^\/platforms$/,
    handle: async (q) => ({ data: (await q(PLATFORMS_SQL, [dayAgo(), null])).map(platformOf) }),
  },
  {
    pattern: /^\/platforms\/([^/]+)$/,
    async handle(q, m) {
      if (!SLUG.test(m[1])) throw new HttpError(404, 'unknown_platform', 'unknown platform');
      const [r] = await q(PLATFORMS_SQL, [dayAgo(), m[1]]);
      if (!r) throw new HttpError(404, 'unknown_platform', 'unknown platform');
      return { data: platformOf(r) };
    },
  },
  {
    pattern: /^\/platforms\/([^/]+)\/domains$/,
    // The program's domains by name (domains_platform_idx) and their count, one statement.
    async handle(q, m, params) {
      const { limit, offset } = pageOf(params, 200, 1000);
      const rows = await q(
        `SELECT pl.slug, t.total, p.* FROM platforms pl
           CROSS JOIN LATERAL (SELECT count(*)::int AS total FROM domains WHERE platform_slug = pl.slug) t
           LEFT JOIN LATERAL (SELECT domain, program, enabled, total_subdomains FROM domains
                               WHERE platform_slug = pl.slug ORDER BY domain LIMIT ${limit} OFFSET ${offset}) p ON true
          WHERE pl.slug = $1`,
        [m[1]],
      );
      if (!rows.length) throw new HttpError(404, 'unknown_platform', 'unknown platform');
      return {
        data: rows
          .filter((r) => r.domain !== null)
          .map((r) => ({
            domain: r.domain,
            program: r.program,
            enabled: r.enabled,
            total_subdomains: r.total_subdomains,
          })),
        meta: { limit, offset, total: rows[0].total },
      };
    },
  },
  {
    pattern: /^\/platforms\/([^/]+)\/subdomains$/,
    // The program's active hosts, domain after domain by name, hosts by name, after the cursor's (domain, host):
    // the domains from domains_platform_idx, each one's hosts from floor_hosts_active_name_idx (index only), the
    // first domain continued after the cursor's host. One row more than the page; what is known of a host read
    // for the page's rows only.
    async handle(q, m, params) {
      const limit = Math.max(1, intParam(params, 'limit', 1000, 10000));
      const cursor = params.get('cursor');
      const [afterDomain, afterHost] = cursor ? decodeCursor(cursor) : ['', ''];
      const active = params.get('active') !== 'false';
      const shown = shownOf(params);
      const values = [m[1], afterDomain, afterHost];
      const program = params.get('program');
      const programCond = program ? `AND d.domain LIKE $${values.push(contains(program))}` : '';
      const [known] = await q('SELECT 1 FROM platforms WHERE slug = $1', [m[1]]);
      if (!known) throw new HttpError(404, 'unknown_platform', 'unknown platform');
      const k = knowledgeJoin(shown);
      const page = `SELECT d.domain, h.host, h.is_active, h.sources${k.join ? ', h.id' : ''}
           FROM domains d JOIN hosts h ON h.domain_id = d.id
          WHERE d.platform_slug = $1 AND d.domain >= $2 ${programCond}
            AND (d.domain > $2 OR h.host > $3) ${active ? 'AND h.is_active' : ''}
            ${LISTED[shown.scope].map((c) => `AND ${c}`).join(' ')}
          ORDER BY d.domain, h.host LIMIT ${limit + 1}`;
      const rows = await q(
        k.join ? `SELECT p.*${k.columns} FROM (${page}) p ${k.join} ORDER BY p.domain, p.host` : page,
        values,
      );
      const data = rows
        .slice(0, limit)
        .map((r) =>
          shownRow({ host: r.host, domain: r.domain, is_active: r.is_active, sources: sourcesOf(r.sources) }, r, shown),
        );
      const last = data.at(-1);
      const nextCursor = rows.length > limit ? encodeCursor(last.domain, last.host) : null;
      return { data, meta: { count: data.length, limit, next_cursor: nextCursor, has_more: nextCursor !== null } };
    },
  },
  {
    pattern: /^\/platforms\/([^/]+)\/subdomains\/new$/,
    // The new-host feed of one platform: floor_hosts_new_idx newest first, each row's domain checked.
    async handle(q, m, params) {
      const limit = Math.max(1, intParam(params, 'limit', 500, 2000));
      const since = sinceOf(params);
      const shown = shownOf(params);
      const [known] = await q('SELECT 1 FROM platforms WHERE slug = $1', [m[1]]);
      if (!known) throw new HttpError(404, 'unknown_platform', 'unknown platform');
      const k = knowledgeJoin(shown);
      const rows = await q(
        `SELECT p.*${k.columns}
           FROM (SELECT h.id, h.host, d.domain, h.first_seen_at, h.sources
                   FROM hosts h JOIN domains d ON d.id = h.domain_id
                  WHERE ${['h.first_seen_at >= $1', 'd.platform_slug = $2', ...FED[shown.scope]].join(' AND ')}
                  ORDER BY h.first_seen_at DESC, h.id DESC LIMIT ${limit}) p
           ${k.join}
          ORDER BY p.first_seen_at DESC, p.id DESC`,
        [since, m[1]],
      );
      const data = rows.map((r) =>
        shownRow(
          {
            id: r.id,
            host: r.host,
            domain: r.domain,
            first_seen_at: iso(r.first_seen_at),
            sources: sourcesOf(r.sources),
          },
          r,
          shown,
        ),
      );
      return { data, meta: { since, count: data.length, limit } };
    },
  },
  {
    pattern: /^\/scans$/,
    // Scans newest first with their filters and the filtered count, one statement.
    async handle(q, _m, params) {
      const { limit, offset } = pageOf(params, 50, 500);
      const values = [];
      const where = [];
      const domain = params.get('domain');
      if (domain) {
        if (!DOMAIN.test(domain)) throw new HttpError(400, 'invalid_domain', 'not a root domain');
        where.push(`s.domain_id = (SELECT id FROM domains WHERE domain = $${values.push(domain)})`);
      }
      if (params.get('platform'))
        where.push(
          `s.domain_id IN (SELECT id FROM domains WHERE platform_slug = $${values.push(params.get('platform'))})`,
        );
      if (params.get('status')) where.push(`s.status = $${values.push(params.get('status'))}`);
      const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const rows = await q(
        `SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM scans s ${filter}) t
           LEFT JOIN LATERAL (SELECT ${SCAN_COLUMNS} FROM (SELECT * FROM scans s ${filter}
                                ORDER BY s.started_at DESC, s.id DESC LIMIT ${limit} OFFSET ${offset}) s
                                JOIN domains d ON d.id = s.domain_id
                               ORDER BY s.started_at DESC, s.id DESC) p ON true`,
        values,
      );
      return { data: rows.filter((r) => r.id !== null).map(scanOf), meta: { limit, offset, total: rows[0].total } };
    },
  },
  {
    pattern: /^\/scans\/status$/,
    // Worker status: counts of scans (running, and finished in 30 min: floor_scans_finished_idx) and of domains.
    async handle(q) {
      const [r] = await q(
        `SELECT (SELECT count(*)::int FROM scans WHERE status = 'running') AS running_scans,
                r.scanned_30m, r.errors_30m, e.error AS last_error, e.finished_at AS last_error_at, c.*
           FROM (SELECT count(*)::int AS scanned_30m, count(*) FILTER (WHERE status = 'error')::int AS errors_30m
                   FROM scans WHERE finished_at >= now() - interval '30 minutes') r
           CROSS JOIN (SELECT count(*) FILTER (WHERE enabled AND next_scan_at <= now())::int AS due_domains,
                              count(*)::int AS total_domains, count(*) FILTER (WHERE enabled)::int AS enabled_domains,
                              count(*) FILTER (WHERE queued_at IS NOT NULL)::int AS queued_domains,
                              count(*) FILTER (WHERE enabled AND last_scanned_at >= now() - interval '24 hours')::int
                                AS scanned
                         FROM domains) c
           LEFT JOIN LATERAL (SELECT error, finished_at FROM scans WHERE status = 'error'
                               ORDER BY started_at DESC LIMIT 1) e ON true`,
      );
      return {
        data: {
          health: {
            running_scans: r.running_scans,
            scanned_30m: r.scanned_30m,
            errors_30m: r.errors_30m,
            last_error: r.last_error,
            last_error_at: iso(r.last_error_at ?? null),
          },
          cycle: {
            due_domains: r.due_domains,
            total_domains: r.total_domains,
            enabled_domains: r.enabled_domains,
            queued_domains: r.queued_domains,
            sweep_coverage: r.enabled_domains ? +(r.scanned / r.enabled_domains).toFixed(4) : 1,
            interval_hours: 24,
          },
        },
      };
    },
  },
  {
    pattern: /^\/scans\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/,
    // One scan by its key, with its domain.
    async handle(q, m) {
      const [r] = await q(`SELECT ${SCAN_COLUMNS} FROM scans s JOIN domains d ON d.id = s.domain_id WHERE s.id = $1`, [
        m[1],
      ]);
      if (!r) throw notFound('scan');
      return { data: scanOf(r) };
    },
  },
  {
    pattern: /^\/stats$/,
    // Totals from the domains' counters; new hosts in five windows from the hourly rollup, the first partial
    // hour's minutes and the first partial minute's hosts; the platforms as /platforms. Two statements, run
    // one after the other on the request's connection.
    async handle(q) {
      const now = Date.now();
      const windows = [
        ['last_hour', 3600e3],
        ['last_day', 24 * 3600e3],
        ['last_week', 7 * 24 * 3600e3],
        ['last_month', 30 * 24 * 3600e3],
        ['last_6_months', 182 * 24 * 3600e3],
      ].map(([name, ms]) => [name, new Date(now - ms).toISOString()]);
      const counts = windows
        .map(
          ([name], i) => `(SELECT coalesce(sum(n), 0) FROM (
              SELECT n FROM new_host_counts WHERE hour >= date_trunc('hour', $${i + 1}::timestamptz) + interval '1 hour'
              UNION ALL
              SELECT n FROM new_host_minutes WHERE minute >= date_trunc('minute', $${i + 1}::timestamptz) + interval '1 minute'
                 AND minute < date_trunc('hour', $${i + 1}::timestamptz) + interval '1 hour'
              UNION ALL
              SELECT count(*) FROM hosts WHERE first_seen_at >= $${i + 1}::timestamptz
                 AND first_seen_at < date_trunc('minute', $${i + 1}::timestamptz) + interval '1 minute') x)::bigint AS ${name}`,
        )
        .join(',\n');
      const [[totals], platforms] = await Promise.all([
        q(
          `SELECT count(*)::int AS domains, count(*) FILTER (WHERE enabled)::int AS enabled_domains,
                  sum(total_subdomains)::bigint AS subdomains, sum(active_subdomains)::bigint AS active_subdomains,
                  ${counts}
             FROM domains`,
          windows.map(([, since]) => since),
        ),
        q(PLATFORMS_SQL, [windows[1][1], null]),
      ]);
      return {
        data: {
          totals: {
            domains: totals.domains,
            enabled_domains: totals.enabled_domains,
            subdomains: Number(totals.subdomains),
            active_subdomains: Number(totals.active_subdomains),
            inactive_subdomains: Number(totals.subdomains) - Number(totals.active_subdomains),
          },
          new: Object.fromEntries(windows.map(([name]) => [name, Number(totals[name])])),
          platforms: platforms.map(platformOf),
        },
      };
    },
  },
  {
    pattern: /^\/stats\/timeseries$/,
    // Buckets from the hourly rollup; the first, partial hour from the hosts (floor_hosts_new_idx, index only).
    async handle(q, _m, params) {
      const bucket = params.get('bucket') ?? 'hour';
      if (!['hour', 'day', 'week', 'month'].includes(bucket)) throw badQuery('unknown bucket');
      const since = sinceOf(params);
      const rows = await q(
        `SELECT date_trunc('${bucket}', t) AS ts, sum(n)::bigint AS n FROM (
           SELECT hour AS t, n FROM new_host_counts WHERE hour >= date_trunc('hour', $1::timestamptz) + interval '1 hour'
           UNION ALL
           SELECT $1::timestamptz, count(*) FROM hosts
            WHERE first_seen_at >= $1 AND first_seen_at < date_trunc('hour', $1::timestamptz) + interval '1 hour'
         ) x GROUP BY 1 ORDER BY 1`,
        [since],
      );
      const data = rows.map((r) => ({ ts: iso(r.ts), new_subdomains: Number(r.n) }));
      return { data, meta: { bucket, since, count: data.length } };
    },
  },
  {
    pattern: /^\/stats\/top-domains$/,
    // New hosts per domain in the window: whole days from domain_new_host_days, the hours around them from
    // domain_new_host_counts (its hour index), the first partial hour from the hosts (floor_hosts_new_idx, index
    // only); the top N by count, then their names.
    async handle(q, _m, params) {
      const limit = Math.max(1, intParam(params, 'limit', 20, 200));
      const since = sinceOf(params);
      const rows = await q(
        `WITH b AS (SELECT $1::timestamptz AS since, date_trunc('hour', $1::timestamptz) + interval '1 hour' AS h0,
                           date_trunc('day', date_trunc('hour', $1::timestamptz) + interval '1 hour' - interval '1 microsecond')
                             + interval '1 day' AS d0,
                           date_trunc('day', now()) AS d1),
              per AS (
                SELECT domain_id, sum(n) AS n FROM (
                  SELECT c.domain_id, c.n FROM domain_new_host_days c, b WHERE c.day >= b.d0 AND c.day < b.d1
                  UNION ALL
                  SELECT c.domain_id, c.n FROM domain_new_host_counts c, b
                   WHERE c.hour >= b.h0 AND (c.hour < b.d0 OR c.hour >= greatest(b.d1, b.d0))
                  UNION ALL
                  SELECT h.domain_id, 1 FROM hosts h, b WHERE h.first_seen_at >= b.since AND h.first_seen_at < b.h0
                ) x GROUP BY domain_id ORDER BY n DESC, domain_id LIMIT ${limit})
         SELECT d.domain, per.n FROM per JOIN domains d ON d.id = per.domain_id ORDER BY per.n DESC, d.domain`,
        [since],
      );
      return { data: rows.map((r) => ({ domain: r.domain, new_count: Number(r.n) })), meta: { since, limit } };
    },
  },
];

const KEY_SQL = `SELECT k.name, k.user_id, k.scopes, k.revoked_at IS NOT NULL AS revoked,
                        EXISTS (SELECT 1 FROM users u WHERE u.id::text = k.user_id AND u.disabled_at IS NOT NULL) AS disabled
                   FROM api_keys k WHERE k.key_hash = $1`;

/**
 * Copies the database at `databaseUrl` (CREATE DATABASE … TEMPLATE; nothing may be connected to it for that
 * moment), makes the floor's indexes on the copy and serves the endpoints from it. close() drops the copy.
 * `onStatement(sql, values)`, when given, sees every statement (for EXPLAIN).
 */
export async function startIndependentFloor(databaseUrl, poolSize = 10, { onStatement } = {}) {
  const source = new URL(databaseUrl);
  const sourceName = source.pathname.slice(1);
  const name = `${sourceName}_ifloor`.slice(0, 63);
  const admin = new pg.Client({
    connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString(),
  });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  // The template must have no other session for the copy: the service's pool and the bench's own are open on it.
  // Their sessions are ended (they reconnect on their next query).
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [sourceName],
      );
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${sourceName} STRATEGY FILE_COPY`);
      break;
    } catch (e) {
      if (attempt > 20 || !/being accessed by other users/.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const url = Object.assign(new URL(databaseUrl), { pathname: `/${name}` }).toString();
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query('SET maintenance_work_mem = "256MB"');
  for (const sql of INDEXES) await setup.query(sql);
  await setup.query('VACUUM ANALYZE hosts, domains, scans, host_intel');
  await setup.end();

  const types = {
    getTypeParser: (oid, format) => (oid === TIMESTAMPTZ ? (v) => v : pg.types.getTypeParser(oid, format)),
  };
  // No JIT, as a careful engineer sets it for short statements (and as the service does).
  const pool = new pg.Pool({ connectionString: url, max: poolSize, options: '-c TimeZone=UTC -c jit=off', types });
  // An idle connection ended from outside (the copy dropped WITH (FORCE) as the run ends) is no failure of a run.
  pool.on('error', () => undefined);

  const server = createServer(async (req, res) => {
    const send = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    const client = await pool.connect().catch((e) => e);
    if (client instanceof Error) return send(500, { error: { code: 'query_failed', message: client.message } });
    try {
      const url = new URL(req.url, 'http://floor');
      const path = url.pathname.replace(/^\/api\/(public\/)?v1/, '');
      if (req.method !== 'GET') throw new HttpError(405, 'method_not_allowed', 'GET only');
      const route = ROUTES.find((r) => r.pattern.test(path));
      if (!route) throw notFound('endpoint');
      const q = async (sql, values = []) => {
        onStatement?.(sql, values);
        return (await client.query(sql, values)).rows;
      };
      let key = null;
      if (!route.public) {
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const token = req.headers['x-api-key'] ?? bearer;
        if (!token) throw new HttpError(401, 'missing_token', 'no token');
        [key] = await q(KEY_SQL, [createHash('sha256').update(String(token)).digest('hex')]);
        if (!key) throw new HttpError(401, 'invalid_token', 'unknown token');
        if (key.revoked || key.disabled) throw new HttpError(401, 'revoked_token', 'revoked');
        if (!key.scopes.includes('read')) throw new HttpError(403, 'insufficient_scope', 'read scope needed');
      }
      send(200, await route.handle(q, path.match(route.pattern), url.searchParams, key));
    } catch (e) {
      if (e instanceof HttpError) send(e.status, { error: { code: e.code, message: e.message } });
      else send(500, { error: { code: 'query_failed', message: String(e.message ?? e) } });
    } finally {
      client.release();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    databaseUrl: url,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
