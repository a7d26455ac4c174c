import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANY_OPERATION, DATABASE_BUSY, MALFORMED_REQUEST } from '../src/common/openapi/standard-responses.js';
import { seedDomain, seedScan } from './fixtures/data.js';
import { type PrismProxy, redoclyLint, startPrismProxy, violationsOf } from './fixtures/prism.js';
import { type TestApp, startTestApp } from './fixtures/test-app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REDOCLY_CONFIG = fileURLToPath(new URL('../redocly.yaml', import.meta.url));

/** One request of an operation, and the status the service must answer it with. */
interface Case {
  status: number;
  path: string;
  key?: 'read' | 'write' | 'none';
  body?: string;
  headers?: Record<string, string>;
}

const UNKNOWN_SCAN = '00000000-0000-4000-8000-000000000000';
const BIG_BODY = JSON.stringify({ domain: 'x'.repeat(20_000) });

/**
 * Every operation of the document, by "METHOD path": its happy path and every client error it documents. The test
 * takes the list of operations from the served document, so an endpoint added without cases here fails it.
 */
const CASES: Record<string, Case[]> = {
  'GET /': [{ status: 200, path: '/', key: 'none' }],
  'GET /openapi.json': [{ status: 200, path: '/openapi.json', key: 'none' }],
  'GET /me': [
    { status: 200, path: '/me' },
    { status: 401, path: '/me', key: 'none' },
    { status: 401, path: '/me', headers: { authorization: 'Bearer sm_live_0000000000000000000000000000000000000000' } },
  ],
  'GET /domains': [
    { status: 200, path: '/domains?platform=hackerone&sort=total_subdomains&limit=2&offset=0' },
    { status: 200, path: '/domains?limit=5000' }, // clamped, not refused
    { status: 400, path: '/domains?limit=0' },
    { status: 400, path: '/domains?sort=nope' },
    { status: 401, path: '/domains', key: 'none' },
  ],
  'GET /domains/{domain}': [
    { status: 200, path: '/domains/example.com' },
    { status: 400, path: '/domains/Not_A_Domain' },
    { status: 401, path: '/domains/example.com', key: 'none' },
    { status: 404, path: '/domains/unknown.example' },
  ],
  'GET /domains/{domain}/subdomains': [
    { status: 200, path: '/domains/example.com/subdomains?filter=inactive' },
    { status: 200, path: '/domains/example.com/subdomains?search=api&limit=1' },
    { status: 200, path: '/domains/example.com/subdomains?resolves=true&cname=cdn.example&takeover=false' },
    { status: 200, path: '/domains/example.com/subdomains?wildcard=only' },
    { status: 400, path: '/domains/example.com/subdomains?status=99' },
    { status: 400, path: '/domains/example.com/subdomains?filter=nope' },
    { status: 401, path: '/domains/example.com/subdomains', key: 'none' },
    { status: 404, path: '/domains/unknown.example/subdomains' },
  ],
  'GET /domains/{domain}/subdomains/new': [
    { status: 200, path: '/domains/example.com/subdomains/new?hours=48' },
    { status: 200, path: '/domains/example.com/subdomains/new?since=2020-01-01T00:00:00Z' },
    { status: 400, path: '/domains/example.com/subdomains/new?hours=0' },
    { status: 401, path: '/domains/example.com/subdomains/new', key: 'none' },
    { status: 404, path: '/domains/unknown.example/subdomains/new' },
  ],
  'GET /subdomains/new': [
    { status: 200, path: '/subdomains/new?limit=1' },
    { status: 200, path: '/subdomains/new?wildcard=include' },
    { status: 400, path: '/subdomains/new?wildcard=maybe' },
    { status: 400, path: '/subdomains/new?since=yesterday' },
    { status: 401, path: '/subdomains/new', key: 'none' },
  ],
  'GET /subdomains/search': [
    { status: 200, path: '/subdomains/search?q=api' },
    { status: 200, path: '/subdomains/search?q=api&status=200&resolves=true' },
    { status: 400, path: '/subdomains/search?q=a' },
    { status: 401, path: '/subdomains/search?q=api', key: 'none' },
  ],
  'GET /subdomains/stream': [
    // The 200 is an endless event stream, which Prism would wait for, and the 503 needs it held open: both are
    // checked in a test of their own (STREAM_HELD).
    { status: 400, path: '/subdomains/stream?domain=Not_A_Domain' },
    { status: 400, path: '/subdomains/stream?domain=example.com&platform=hackerone' },
    { status: 401, path: '/subdomains/stream', key: 'none' },
    { status: 404, path: '/subdomains/stream?domain=unknown.example' },
  ],
  'GET /platforms': [
    { status: 200, path: '/platforms' },
    { status: 401, path: '/platforms', key: 'none' },
  ],
  'GET /platforms/{slug}': [
    { status: 200, path: '/platforms/hackerone' },
    { status: 401, path: '/platforms/hackerone', key: 'none' },
    { status: 404, path: '/platforms/nope' },
  ],
  'GET /platforms/{slug}/domains': [
    { status: 200, path: '/platforms/hackerone/domains?limit=1' },
    { status: 400, path: '/platforms/hackerone/domains?offset=-1' },
    { status: 401, path: '/platforms/hackerone/domains', key: 'none' },
    { status: 404, path: '/platforms/nope/domains' },
  ],
  'GET /platforms/{slug}/subdomains': [
    { status: 200, path: '/platforms/hackerone/subdomains?limit=1' },
    { status: 200, path: '/platforms/hackerone/subdomains?limit=1&format=txt&active=false' },
    { status: 200, path: '/platforms/hackerone/subdomains?limit=3&fields=ips,cname,status,title' },
    { status: 200, path: '/platforms/hackerone/subdomains?limit=3&format=txt&fields=title' },
    { status: 400, path: '/platforms/hackerone/subdomains?fields=nope' },
    { status: 400, path: '/platforms/hackerone/subdomains?cursor=forged' },
    { status: 400, path: '/platforms/hackerone/subdomains?format=xml' },
    { status: 401, path: '/platforms/hackerone/subdomains', key: 'none' },
    { status: 404, path: '/platforms/nope/subdomains?format=txt' },
  ],
  'GET /platforms/{slug}/subdomains/new': [
    { status: 200, path: '/platforms/hackerone/subdomains/new?hours=48' },
    { status: 400, path: '/platforms/hackerone/subdomains/new?limit=many' },
    { status: 401, path: '/platforms/hackerone/subdomains/new', key: 'none' },
    { status: 404, path: '/platforms/nope/subdomains/new' },
  ],
  'GET /scans': [
    { status: 200, path: '/scans?domain=example.com&limit=1' },
    { status: 200, path: '/scans?platform=hackerone&status=success' },
    { status: 400, path: '/scans?status=nope' },
    { status: 401, path: '/scans', key: 'none' },
    { status: 404, path: '/scans?domain=unknown.example' },
  ],
  'GET /scans/sources': [
    { status: 200, path: '/scans/sources' },
    { status: 200, path: '/scans/sources?domain=example.com&days=7' },
    { status: 400, path: '/scans/sources?days=0' },
    { status: 400, path: '/scans/sources?domain=a..example' },
    { status: 401, path: '/scans/sources', key: 'none' },
    { status: 404, path: '/scans/sources?domain=unknown.example' },
  ],
  'GET /scans/status': [
    { status: 200, path: '/scans/status' },
    { status: 401, path: '/scans/status', key: 'none' },
  ],
  'GET /scans/{id}': [
    { status: 200, path: '/scans/{scan}' },
    { status: 400, path: '/scans/not-a-uuid' },
    { status: 401, path: '/scans/{scan}', key: 'none' },
    { status: 404, path: `/scans/${UNKNOWN_SCAN}` },
  ],
  'POST /scans': [
    { status: 202, path: '/scans', key: 'write', body: '{"domain":"example.com"}' },
    { status: 400, path: '/scans', key: 'write', body: '{}' },
    { status: 400, path: '/scans', key: 'write', body: '{"domain":"Not_A_Domain"}' },
    { status: 401, path: '/scans', key: 'none', body: '{"domain":"example.com"}' },
    { status: 403, path: '/scans', key: 'read', body: '{"domain":"example.com"}' },
    { status: 404, path: '/scans', key: 'write', body: '{"domain":"unknown.example"}' },
    { status: 413, path: '/scans', key: 'write', body: BIG_BODY },
  ],
  'POST /scans/rescan-all': [
    { status: 202, path: '/scans/rescan-all', key: 'write' },
    { status: 401, path: '/scans/rescan-all', key: 'none' },
    { status: 403, path: '/scans/rescan-all', key: 'read' },
  ],
  'GET /stats': [
    { status: 200, path: '/stats' },
    { status: 401, path: '/stats', key: 'none' },
  ],
  'GET /stats/top-domains': [
    { status: 200, path: '/stats/top-domains?hours=48&limit=1' },
    { status: 400, path: '/stats/top-domains?hours=-1' },
    { status: 401, path: '/stats/top-domains', key: 'none' },
  ],
  'GET /stats/timeseries': [
    { status: 200, path: '/stats/timeseries?bucket=day&hours=72' },
    { status: 400, path: '/stats/timeseries?bucket=year' },
    { status: 401, path: '/stats/timeseries', key: 'none' },
  ],
  'GET /events': [
    { status: 200, path: '/events?limit=2' },
    { status: 200, path: '/events?type=dns_changed,http_changed,host_gone,takeover_candidate&domain=example.com' },
    { status: 200, path: '/events?platform=hackerone&after=2020-01-01T00:00:00.000000Z_e1' },
    { status: 400, path: '/events?after=yesterday' },
    { status: 400, path: '/events?type=nope' },
    { status: 400, path: '/events?domain=Not_A_Domain' },
    { status: 401, path: '/events', key: 'none' },
    { status: 404, path: '/events?domain=unknown.example' },
  ],
  'GET /hosts/{host}': [
    { status: 200, path: '/hosts/api.example.com' },
    { status: 200, path: '/hosts/old.example.com' },
    { status: 200, path: '/hosts/www.example.com' },
    { status: 400, path: '/hosts/Not..A.Host' },
    { status: 401, path: '/hosts/api.example.com', key: 'none' },
    { status: 404, path: '/hosts/missing.example.com' },
  ],
  'GET /domains/{domain}/exclusions': [
    { status: 200, path: '/domains/example.com/exclusions' },
    { status: 400, path: '/domains/Not_A_Domain/exclusions' },
    { status: 401, path: '/domains/example.com/exclusions', key: 'none' },
    { status: 404, path: '/domains/unknown.example/exclusions' },
  ],
  'POST /domains/{domain}/exclusions': [
    { status: 201, path: '/domains/example.com/exclusions', key: 'write', body: '{"pattern":"*.dev.example.com"}' },
    { status: 201, path: '/domains/example.com/exclusions', key: 'write', body: '{"pattern":"re:^old\\\\."}' },
    { status: 400, path: '/domains/example.com/exclusions', key: 'write', body: '{"pattern":"re:(a)\\\\1"}' },
    { status: 400, path: '/domains/example.com/exclusions', key: 'write', body: '{}' },
    { status: 400, path: '/domains/Not_A_Domain/exclusions', key: 'write', body: '{"pattern":"a.example.com"}' },
    { status: 401, path: '/domains/example.com/exclusions', key: 'none', body: '{"pattern":"a.example.com"}' },
    { status: 403, path: '/domains/example.com/exclusions', key: 'read', body: '{"pattern":"a.example.com"}' },
    { status: 404, path: '/domains/unknown.example/exclusions', key: 'write', body: '{"pattern":"a.unknown.example"}' },
    { status: 413, path: '/domains/example.com/exclusions', key: 'write', body: BIG_BODY },
  ],
  'GET /webhooks': [
    { status: 200, path: '/webhooks', key: 'write' },
    { status: 401, path: '/webhooks', key: 'none' },
    { status: 403, path: '/webhooks', key: 'read' },
  ],
  'POST /webhooks': [
    { status: 201, path: '/webhooks', key: 'write', body: '{"url":"http://127.0.0.1:1/hook","types":["host_new"]}' },
    { status: 201, path: '/webhooks', key: 'write', body: '{"url":"http://127.0.0.1:1/chat","format":"slack"}' },
    { status: 400, path: '/webhooks', key: 'write', body: '{}' },
    { status: 400, path: '/webhooks', key: 'write', body: '{"url":"http://127.0.0.1:1/","types":["nope"]}' },
    { status: 401, path: '/webhooks', key: 'none', body: '{"url":"http://127.0.0.1:1/"}' },
    { status: 403, path: '/webhooks', key: 'read', body: '{"url":"http://127.0.0.1:1/"}' },
    { status: 413, path: '/webhooks', key: 'write', body: BIG_BODY },
  ],
  'GET /webhooks/{id}': [
    { status: 200, path: '/webhooks/{webhook}', key: 'write' },
    { status: 400, path: '/webhooks/x1', key: 'write' },
    { status: 401, path: '/webhooks/{webhook}', key: 'none' },
    { status: 403, path: '/webhooks/{webhook}', key: 'read' },
    { status: 404, path: `/webhooks/${UNKNOWN_SCAN}`, key: 'write' },
  ],
  'DELETE /webhooks/{id}': [
    { status: 200, path: '/webhooks/{gone}', key: 'write' },
    { status: 400, path: '/webhooks/x1', key: 'write' },
    { status: 401, path: '/webhooks/{webhook}', key: 'none' },
    { status: 403, path: '/webhooks/{webhook}', key: 'read' },
    { status: 404, path: `/webhooks/${UNKNOWN_SCAN}`, key: 'write' },
  ],
  'POST /webhooks/{id}/test': [
    { status: 200, path: '/webhooks/{webhook}/test', key: 'write' },
    { status: 400, path: '/webhooks/x1/test', key: 'write' },
    { status: 401, path: '/webhooks/{webhook}/test', key: 'none' },
    { status: 403, path: '/webhooks/{webhook}/test', key: 'read' },
    { status: 404, path: `/webhooks/${UNKNOWN_SCAN}/test`, key: 'write' },
  ],
  'GET /webhooks/{id}/deliveries': [
    { status: 200, path: '/webhooks/{webhook}/deliveries', key: 'write' },
    { status: 400, path: '/webhooks/x1/deliveries', key: 'write' },
    { status: 401, path: '/webhooks/{webhook}/deliveries', key: 'none' },
    { status: 403, path: '/webhooks/{webhook}/deliveries', key: 'read' },
    { status: 404, path: `/webhooks/${UNKNOWN_SCAN}/deliveries`, key: 'write' },
  ],
  'POST /webhooks/{id}/deliveries/{delivery_id}/retry': [
    { status: 202, path: '/webhooks/{webhook}/deliveries/{delivery}/retry', key: 'write' },
    { status: 400, path: '/webhooks/{webhook}/deliveries/x1/retry', key: 'write' },
    { status: 401, path: '/webhooks/{webhook}/deliveries/{delivery}/retry', key: 'none' },
    { status: 403, path: '/webhooks/{webhook}/deliveries/{delivery}/retry', key: 'read' },
    { status: 404, path: `/webhooks/{webhook}/deliveries/${UNKNOWN_SCAN}/retry`, key: 'write' },
  ],
  'DELETE /domains/{domain}/exclusions/{id}': [
    { status: 200, path: '/domains/example.com/exclusions/{rule}', key: 'write' },
    { status: 400, path: '/domains/example.com/exclusions/x1', key: 'write' },
    { status: 400, path: '/domains/Not_A_Domain/exclusions/1', key: 'write' },
    { status: 401, path: '/domains/example.com/exclusions/1', key: 'none' },
    { status: 403, path: '/domains/example.com/exclusions/1', key: 'read' },
    { status: 404, path: '/domains/example.com/exclusions/999999', key: 'write' },
  ],
  'GET /platforms/{slug}/exclusions': [
    { status: 200, path: '/platforms/hackerone/exclusions' },
    { status: 200, path: '/platforms/hackerone/exclusions?program=Example' },
    { status: 400, path: `/platforms/hackerone/exclusions?program=${'x'.repeat(201)}` },
    { status: 401, path: '/platforms/hackerone/exclusions', key: 'none' },
    { status: 404, path: '/platforms/nope/exclusions' },
  ],
  'POST /platforms/{slug}/exclusions': [
    {
      status: 201,
      path: '/platforms/hackerone/exclusions',
      key: 'write',
      body: '{"program":"Example","pattern":"re:^qa\\\\."}',
    },
    { status: 400, path: '/platforms/hackerone/exclusions', key: 'write', body: '{"pattern":"re:^qa\\\\."}' },
    {
      status: 401,
      path: '/platforms/hackerone/exclusions',
      key: 'none',
      body: '{"program":"Example","pattern":"a.b"}',
    },
    {
      status: 403,
      path: '/platforms/hackerone/exclusions',
      key: 'read',
      body: '{"program":"Example","pattern":"a.b"}',
    },
    { status: 404, path: '/platforms/hackerone/exclusions', key: 'write', body: '{"program":"Nope","pattern":"a.b"}' },
    { status: 413, path: '/platforms/hackerone/exclusions', key: 'write', body: BIG_BODY },
  ],
  'DELETE /platforms/{slug}/exclusions/{id}': [
    { status: 200, path: '/platforms/hackerone/exclusions/{programRule}', key: 'write' },
    { status: 400, path: '/platforms/hackerone/exclusions/x1', key: 'write' },
    { status: 401, path: '/platforms/hackerone/exclusions/1', key: 'none' },
    { status: 403, path: '/platforms/hackerone/exclusions/1', key: 'read' },
    { status: 404, path: '/platforms/hackerone/exclusions/999999', key: 'write' },
    { status: 404, path: '/platforms/nope/exclusions/1', key: 'write' },
  ],
  'GET /ct/logs': [
    { status: 200, path: '/ct/logs' },
    { status: 401, path: '/ct/logs', key: 'none' },
  ],
  'GET /export': [
    { status: 200, path: '/export?domain=example.com' },
    { status: 200, path: '/export?platform=hackerone&format=csv&scope=new&hours=48' },
    { status: 200, path: '/export?format=json&scope=inactive' },
    { status: 200, path: '/export?domain=example.com&format=json&fields=ips,cname,status,title' },
    { status: 400, path: '/export?fields=nope' },
    { status: 400, path: '/export?domain=example.com&platform=hackerone' },
    { status: 400, path: '/export?domain=Not_A_Domain' },
    { status: 401, path: '/export', key: 'none' },
    { status: 404, path: '/export?domain=unknown.example' },
  ],
};

// A key without the read scope (a write-only key) is refused at every read route that needs a key: one case each
// where a route has no 403 of its own (the webhooks' GETs need write, and a read key is their case).
for (const [operation, cases] of Object.entries(CASES)) {
  const unauthenticated = cases.find((c) => c.status === 401 && c.key === 'none');
  if (operation.startsWith('GET ') && unauthenticated && !cases.some((c) => c.status === 403)) {
    cases.push({ ...unauthenticated, status: 403, key: 'write' });
  }
}

// Every GET whose body is not streamed answers If-None-Match with the ETag of its answer by 304, as documented.
for (const [operation, cases] of Object.entries(CASES)) {
  if (!operation.startsWith('GET ') || ['GET /export', 'GET /subdomains/stream'].includes(operation)) continue;
  const ok = cases.find((c) => c.status === 200);
  if (ok) cases.push({ ...ok, status: 304 });
}

// Fastify reads the body of every method but GET, and refuses one over 16 KiB before any check: one case each where
// an operation has none of its own.
for (const [operation, cases] of Object.entries(CASES)) {
  if (operation.startsWith('GET ') || cases.some((c) => c.status === 413)) continue;
  cases.push({ status: 413, path: cases[0].path, key: 'write', body: BIG_BODY });
}

/**
 * Statuses every operation documents that are answered before any route runs, on a request Prism would not pass
 * on (a malformed or oversized header, a request that never ends, a method the path does not have):
 * test/openapi-statuses.e2e-spec.ts provokes each at every operation on the service itself.
 */
const BEFORE_ROUTING = Object.keys(ANY_OPERATION).map(Number);
const onlyMalformed = (op: Json) => op.responses['400']?.description === MALFORMED_REQUEST;

/**
 * A 503 that only says the database is busy (no connection came free in time) needs the pool held by others:
 * test/ct-busy.e2e-spec.ts provokes it while the CT follower writes.
 */
const onlyBusy = (op: Json) => op.responses['503']?.description === DATABASE_BUSY;

/** Statuses no request can provoke while the database is up (500 query_failed, server_error). */
const needsAnOutage = (status: number) => status >= 500 && status !== 503;

/** The stream's statuses that need a stream held open: its 200 (checked without Prism) and 503 (all slots taken). */
const STREAM_HELD = [200, 503];

/**
 * The export's 503 (every export slot taken) needs exports held open by clients that stop reading, more rows than
 * the sockets' buffers hold: test/http-limits.e2e-spec.ts provokes it over real sockets on a built server.
 */
const EXPORT_HELD = [503];

/**
 * POST /webhooks answers 503 when the URL's name cannot be looked up right now (EAI_AGAIN), which needs a failing
 * resolver and private addresses refused: the webhook tests provoke it, not this service (WEBHOOK_ALLOW_PRIVATE=on).
 */
const LOOKUP_FAILED = [503];

describe('the OpenAPI document, held to the running service by Prism and Redocly', () => {
  let t: TestApp;
  let prism: PrismProxy;
  let doc: Json;
  let keys: Record<'read' | 'write', string>;
  let scanId: string;
  let ruleId: string;
  let programRuleId: string;
  let webhookId: string;
  let goneId: string;
  let deliveryId: string;
  let dir: string;
  let documentPath: string;
  let heldStream: AbortController | undefined;

  beforeAll(async () => {
    // One stream slot, so that holding it open makes the next stream request a 503.
    t = await startTestApp({ STREAM_MAX_CLIENTS: 1 });
    const domain = await seedDomain(t, {
      domain: 'example.com',
      platform: 'hackerone',
      program: 'Example',
      lastScannedAt: new Date(),
      lastScanStatus: 'success',
      hosts: ['api.example.com', 'www.example.com', { host: 'old.example.com', active: false }],
    });
    scanId = (await seedScan(t, domain, { newCount: 2, foundCount: 3 })).id;
    // A rule to remove, moving www out of scope.
    [{ id: ruleId }] = await t.dataSource.query(
      `INSERT INTO scope_rules (domain_id, kind, pattern, regex)
       VALUES ($1, 'host', 'www.example.com', '^www\\.example\\.com$') RETURNING id::text AS id`,
      [domain.id],
    );
    // A program's rule to remove, copied to example.com by the domains trigger as it would be to a new root.
    [{ id: programRuleId }] = await t.dataSource.query(
      `INSERT INTO program_scope_rules (platform_slug, program, kind, pattern, regex)
       VALUES ('hackerone', 'Example', 'host', 'old.example.com', '^old\\.example\\.com$') RETURNING id::text AS id`,
    );
    // A log never read (its fields null) and one read, with an error.
    await t.dataSource.query(
      `INSERT INTO ct_logs (url, tree_size, position, entries_total, hosts_total, last_polled_at, last_error, last_error_at)
       VALUES ('https://ct.example/a', NULL, NULL, 0, 0, NULL, NULL, NULL),
              ('https://ct.example/b', 1000, 990, 990, 12, now(), 'get-sth: HTTP 503', now())`,
    );
    // A kept DNS answer, a change of it and a host gone: the rows and events that carry every field.
    await t.dataSource.query(
      `WITH h AS (SELECT id, host, domain_id FROM hosts)
       , dns AS (INSERT INTO host_intel (host_id, dns_status, a, aaaa, cname, dns_takeover, resolved_at)
                 SELECT id, 'resolved', '{192.0.2.1}'::text[], '{2001:db8::1}'::text[], '{edge.cdn.example}'::text[],
                        NULL::jsonb, now() FROM h
                  WHERE host = 'api.example.com'
                 UNION ALL
                 SELECT id, 'nxdomain', NULL, NULL, '{old-shop.azurewebsites.net}',
                        '{"service":"Microsoft Azure","status":"Vulnerable","evidence":"NXDOMAIN","vulnerable":true}'::jsonb,
                        now()
                   FROM h WHERE host = 'old.example.com')
       INSERT INTO host_events (type, host_id, domain_id, before, after)
       SELECT 'dns_changed', id, domain_id, '{"status":"nxdomain","a":[],"aaaa":[],"cname":[]}'::jsonb,
              '{"status":"resolved","a":["192.0.2.1"],"aaaa":["2001:db8::1"],"cname":["edge.cdn.example"]}'::jsonb
         FROM h WHERE host = 'api.example.com'
       UNION ALL SELECT 'host_gone', id, domain_id, NULL, NULL FROM h WHERE host = 'old.example.com'
       UNION ALL SELECT 'http_changed', id, domain_id,
                        '{"listening":false,"scheme":null,"port":null,"status":null,"title":null}'::jsonb,
                        '{"listening":true,"scheme":"https","port":443,"status":200,"title":"API"}'::jsonb
                   FROM h WHERE host = 'api.example.com'
       UNION ALL SELECT 'wildcard_detected', id, domain_id, NULL,
                        '{"zone":"*.example.com","answers":["192.0.2.80"]}'::jsonb
                   FROM h WHERE host = 'www.example.com'
       UNION ALL SELECT 'takeover_candidate', id, domain_id, NULL,
                        '{"service":"Microsoft Azure","status":"Vulnerable","evidence":"NXDOMAIN"}'::jsonb
                   FROM h WHERE host = 'old.example.com'`,
    );
    // A probe that answered (on a host resolved above), and one that found nothing listening (on a host never resolved).
    await t.dataSource.query(
      `INSERT INTO host_intel AS k (host_id, listening, scheme, port, http_status, final_url, title, server,
                                    content_length, tls_subject, tls_issuer, tls_not_after, probed_at)
       SELECT id, true, 'https', 443, 200, NULL, 'API', 'nginx', 1234, 'CN=api.example.com',
              'CN=Test CA', now() + interval '30 days', now() FROM hosts WHERE host = 'api.example.com'
       UNION ALL
       SELECT id, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, now()
         FROM hosts WHERE host = 'www.example.com'
       ON CONFLICT (host_id) DO UPDATE
         SET listening = excluded.listening, scheme = excluded.scheme, port = excluded.port,
             http_status = excluded.http_status, title = excluded.title, server = excluded.server,
             content_length = excluded.content_length, tls_subject = excluded.tls_subject,
             tls_issuer = excluded.tls_issuer, tls_not_after = excluded.tls_not_after, probed_at = excluded.probed_at`,
    );
    // The write key's user's webhooks: one with a delivery of the seeded scan, and one to remove.
    [{ id: webhookId }, { id: goneId }] = await t.dataSource.query(
      `INSERT INTO webhooks (url, owner, secret) VALUES ('http://127.0.0.1:1/seeded', 'user-1', 'whsec-0123456789abcdef'),
              ('http://127.0.0.1:1/gone', 'user-1', NULL) RETURNING id::text AS id`,
    );
    [{ id: deliveryId }] = await t.dataSource.query(
      `INSERT INTO webhook_deliveries (webhook_id, scan_id, attempts, last_status, last_error, duration_ms,
                                       last_attempt_at, done_at, outcome)
       VALUES ($1, $2, 6, 503, 'HTTP 503', 120, now(), now(), 'given_up') RETURNING id::text AS id`,
      [webhookId, scanId],
    );
    keys = { read: await t.token(['read']), write: await t.token(['write']) };
    doc = (await t.get('/openapi.json')).body;
    dir = mkdtempSync(join(tmpdir(), 'openapi-conformance-'));
    documentPath = join(dir, 'openapi.json');
    writeFileSync(documentPath, JSON.stringify(doc, null, 2));
    prism = await startPrismProxy(documentPath, `${t.baseUrl}/api/v1`);
  }, 180_000);

  afterAll(async () => {
    heldStream?.abort();
    await prism?.stop();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Json })),
    );

  it('has cases for every operation it documents, and for every client error each documents', () => {
    const documented = operations().map((o) => o.key);
    expect([...documented].sort()).toEqual(Object.keys(CASES).sort());
    for (const { key, op } of operations()) {
      const statuses = Object.keys(op.responses as Json)
        .map(Number)
        .filter((s) => !needsAnOutage(s));
      const covered = new Set([
        ...CASES[key].map((c) => c.status),
        ...BEFORE_ROUTING,
        ...(onlyMalformed(op) ? [400] : []),
        ...(onlyBusy(op) ? [503] : []),
        ...(key === 'GET /subdomains/stream' ? STREAM_HELD : []),
        ...(key === 'GET /export' ? EXPORT_HELD : []),
        ...(key === 'POST /webhooks' ? LOOKUP_FAILED : []),
      ]);
      expect([key, statuses.filter((s) => !covered.has(s))]).toEqual([key, []]);
      expect([key, CASES[key].map((c) => c.status).filter((s) => !statuses.includes(s))]).toEqual([key, []]);
    }
  });

  it('passes redocly lint with no problem', async () => {
    const problems = await redoclyLint(documentPath, REDOCLY_CONFIG);
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  /** Sends one case through Prism: what is wrong with the exchange, or nothing. */
  async function check(operation: string, c: Case): Promise<string[]> {
    const path = c.path
      .replace('{scan}', scanId)
      .replace('{rule}', ruleId)
      .replace('{programRule}', programRuleId)
      .replace('{webhook}', webhookId)
      .replace('{gone}', goneId)
      .replace('{delivery}', deliveryId);
    const method = operation.split(' ')[0];
    const key = c.key ?? 'read';
    const headers: Record<string, string> = {
      ...(key === 'none' ? {} : { authorization: `Bearer ${keys[key]}` }),
      ...(c.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...c.headers,
    };
    if (c.status === 304) {
      // The ETag the service gave this very request a moment ago, sent back through Prism.
      const first = await fetch(`${t.baseUrl}/api/v1${path}`, { headers });
      await first.arrayBuffer();
      headers['if-none-match'] = first.headers.get('etag') ?? '';
    }
    const res = await fetch(prism.url + path, { method, headers, body: c.body });
    await res.arrayBuffer();
    const label = `${method} ${path} (${key} key)`;
    const problems: string[] = [];
    // An answer of Prism's own (it could not route or forward the request) has no request id of the service.
    if (!res.headers.get('x-request-id')) problems.push(`${label}: not answered by the service: ${res.status}`);
    if (res.status !== c.status) problems.push(`${label}: status ${res.status}, expected ${c.status}`);
    // The response must match the document, always; so must a request the service accepts. A request it refuses
    // (400, 401, 403, 404 for an unknown platform, 413) may break the document too: both refuse it, and the
    // service's answer must be one the document gives.
    const refused = c.status >= 400;
    for (const v of violationsOf(res)) {
      if (v.location[0] === 'request' && refused) continue;
      problems.push(`${label}: ${v.severity} at ${v.location.join('.')}: ${v.message}`);
    }
    return problems;
  }

  for (const [operation, cases] of Object.entries(CASES)) {
    it(`${operation}: every case answers its status, and Prism finds no violation`, async () => {
      const problems: string[] = [];
      for (const c of cases) problems.push(...(await check(operation, c)));
      expect(problems).toEqual([]);
    });
  }

  it('GET /subdomains/stream: an open stream is answered as documented, and a stream over the cap is a 503', async () => {
    heldStream = new AbortController();
    const res = await fetch(`${t.baseUrl}/api/v1/subdomains/stream`, {
      headers: { authorization: `Bearer ${keys.read}` },
      signal: heldStream.signal,
    });
    const ok = doc.paths['/subdomains/stream'].get.responses['200'];
    expect(res.status).toBe(200);
    expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(ok.headers['X-Request-Id']).toEqual({ $ref: '#/components/headers/X-Request-Id' });
    expect(res.headers.get('x-request-id')).toMatch(new RegExp(doc.components.headers['X-Request-Id'].schema.pattern));
    // STREAM_MAX_CLIENTS is 1 and this stream holds it (until afterAll): the next one is refused.
    expect(await check('GET /subdomains/stream', { status: 503, path: '/subdomains/stream' })).toEqual([]);
  });
});
