import { Validator } from '@seriousme/openapi-schema-validator';
import { RE2JS } from 're2js';
import {
  HOST_NAME_PATTERN,
  NO_CONTROL_PATTERN,
  ROOT_DOMAIN_PATTERN,
} from '../../src/common/validation/name-patterns.js';
import { EVENT_TYPES } from '../../src/events/dto/events.query.js';
import { HOST_FIELDS } from '../../src/hosts/model/host-fields.js';
import { RESUME_ID_PATTERN } from '../../src/stream/dto/stream.query.js';
import { type TestApp, startTestApp } from '../fixtures/test-app.js';
import { fetchStatus } from '../fixtures/http.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('GET /openapi.json', () => {
  let t: TestApp;
  let doc: Json;

  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.get('/openapi.json')).body;
  });
  afterAll(() => t.close());

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Json })),
    );

  it('is public, under both prefixes, and identical there', async () => {
    const mirror = await t.get('/api/public/v1/openapi.json');
    expect(mirror.status).toBe(200);
    expect(mirror.body).toEqual(doc);
  });

  it('is a valid OpenAPI 3.1.0 document, version 1.0.0', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result).toEqual({ valid: true });
  });

  it('lists exactly the routes GET / lists', async () => {
    const index: string[] = (await t.get('/')).body.data.endpoints;
    const documented = operations().map((o) => `${o.method} ${o.path}`);
    expect([...documented].sort()).toEqual([...index].sort());
  });

  it('names both servers and both security schemes, and secures every non-public operation with either', () => {
    expect(doc.servers.map((s: Json) => s.url)).toEqual(['/api/v1', '/api/public/v1']);
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      api_key: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
    for (const { path, method, op } of operations()) {
      if (path === '/' || path === '/openapi.json') {
        expect(op.security).toEqual([]);
        continue;
      }
      expect([method, path, op.security]).toEqual([method, path, [{ bearer: [] }, { api_key: [] }]]);
      expect(op.responses['401']).toBeDefined();
      expect(op.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBodyDto');
    }
  });

  it('describes the parameters with their types, defaults and enums', () => {
    const param = (path: string, name: string) =>
      (doc.paths[path].get.parameters as Json[]).find((p) => p.name === name)?.schema as Json;
    expect(param('/domains', 'limit')).toMatchObject({ type: 'integer', minimum: 1, default: 100 });
    expect(param('/domains', 'sort')).toMatchObject({
      enum: ['domain', 'total_subdomains', 'new_subdomains_last_scan', 'last_scanned_at'],
      default: 'domain',
    });
    expect(param('/domains', 'enabled')).toMatchObject({ type: 'boolean' });
    expect(param('/subdomains/new', 'limit')).toMatchObject({ default: 500 });
    expect(param('/subdomains/new', 'since')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(param('/subdomains/new', 'hours')).toMatchObject({ type: 'integer', default: 24 });
    expect(param('/platforms/{slug}/subdomains', 'limit')).toMatchObject({ default: 1000 });
    expect(param('/platforms/{slug}/subdomains', 'active')).toMatchObject({ type: 'boolean', default: true });
    expect(param('/scans', 'limit')).toMatchObject({ default: 50 });
    expect(param('/stats/top-domains', 'limit')).toMatchObject({ default: 20 });
    expect(param('/stats/timeseries', 'bucket')).toMatchObject({
      enum: ['hour', 'day', 'week', 'month'],
      default: 'hour',
    });
    const q = (doc.paths['/subdomains/search'].get.parameters as Json[]).find((p) => p.name === 'q');
    expect(q).toMatchObject({ required: true, schema: { minLength: 2 } });
  });

  it('states the syntax the server checks for names, lists and ids, as patterns RE2 and ECMAScript read alike', () => {
    const param = (path: string, method: string, name: string) =>
      (doc.paths[path][method].parameters as Json[]).find((p) => p.name === name) as Json;
    const rootDomain = { type: 'string', minLength: 3, maxLength: 253, pattern: ROOT_DOMAIN_PATTERN };
    for (const [path, method] of [
      ['/domains/{domain}', 'get'],
      ['/domains/{domain}/subdomains', 'get'],
      ['/domains/{domain}/subdomains/new', 'get'],
      ['/domains/{domain}/exclusions', 'post'],
      ['/domains/{domain}/exclusions/{id}', 'delete'],
    ]) {
      expect([path, param(path, method, 'domain').schema]).toEqual([path, expect.objectContaining(rootDomain)]);
    }
    for (const path of ['/scans', '/export', '/events', '/subdomains/stream']) {
      expect([path, param(path, 'get', 'domain').schema]).toEqual([path, expect.objectContaining(rootDomain)]);
    }
    expect(doc.components.schemas.QueueScanDto.properties.domain).toMatchObject(rootDomain);
    expect(param('/hosts/{host}', 'get', 'host').schema).toMatchObject({ maxLength: 253, pattern: HOST_NAME_PATTERN });
    expect(param('/platforms/{slug}/subdomains', 'get', 'program').schema).toMatchObject({
      minLength: 1,
      maxLength: 253,
      pattern: NO_CONTROL_PATTERN,
    });
    for (const [path, name, values] of [
      ['/events', 'type', EVENT_TYPES],
      ['/subdomains/stream', 'types', EVENT_TYPES],
      ['/export', 'fields', HOST_FIELDS],
      ['/platforms/{slug}/subdomains', 'fields', HOST_FIELDS],
    ] as const) {
      expect([path, name, param(path, 'get', name)]).toEqual([
        path,
        name,
        expect.objectContaining({
          style: 'form',
          explode: false,
          schema: expect.objectContaining({ type: 'array', minItems: 1, items: { type: 'string', enum: values } }),
        }),
      ]);
    }
    const resume = param('/subdomains/stream', 'get', 'last_event_id');
    expect(resume.schema.pattern).toBe(RESUME_ID_PATTERN);
    for (const example of Object.values(resume.examples as Json)) {
      expect(new RegExp(resume.schema.pattern as string).test(example.value as string)).toBe(true);
    }
    expect(param('/subdomains/stream', 'get', 'Last-Event-ID').schema.pattern).toBe(RESUME_ID_PATTERN);
    // Every pattern of the document compiles in RE2 (Go's and RE2-based tools' engine) as well as in ECMAScript.
    const patterns = JSON.stringify(doc).match(/"pattern":"(?:[^"\\]|\\.)*"/g) ?? [];
    expect(patterns.length).toBeGreaterThan(10);
    for (const text of patterns) {
      const pattern = JSON.parse(`{${text}}`).pattern as string;
      expect(() => [RE2JS.compile(pattern), new RegExp(pattern, 'u')]).not.toThrow();
    }
  });

  it('refuses exactly the names its patterns refuse, beside what only the Public Suffix List can say', async () => {
    const auth = { authorization: `Bearer ${await t.token()}` };
    const fits = (pattern: string, name: string) => name.length <= 253 && new RegExp(pattern).test(name);
    const names = ['example.com', 'Example.com', '-a.com', 'a-.com', 'a_b.com', '1.2.3.4', 'example.1a', 'x.y'];
    for (const name of [...names, `${'a'.repeat(64)}.com`, 'example..com', 'ex%20ample.com', `${'a.'.repeat(127)}io`]) {
      const res = await t.get(`/domains/${name}`, auth);
      const refusedAsName = res.status === 400 && !/root domain|registrable/.test(res.body.error.message as string);
      expect([name, refusedAsName]).toEqual([name, !fits(ROOT_DOMAIN_PATTERN, decodeURIComponent(name))]);
    }
    for (const name of [...names, 'api.example.com', '_dmarc.example.com', 'api.example.com.', 'a..example.com']) {
      const res = await t.get(`/hosts/${name}`, auth);
      expect([name, res.status === 400]).toEqual([name, !fits(HOST_NAME_PATTERN, name)]);
    }
  });

  it('types nullable fields the OpenAPI 3.1 way', () => {
    expect(doc.components.schemas.DomainDto.properties.last_scanned_at).toEqual(
      expect.objectContaining({ type: ['string', 'null'], format: 'date-time' }),
    );
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
  });

  it('documents the plain-text body of the platform feed and its X-Next-Cursor header', () => {
    const ok = doc.paths['/platforms/{slug}/subdomains'].get.responses['200'];
    expect(Object.keys(ok.content)).toEqual(['application/json', 'text/plain']);
    expect(ok.headers['X-Next-Cursor']).toBeDefined();
  });

  it('documents 202 for the write endpoints and 403 for a read-only key', () => {
    expect(doc.paths['/scans'].post.responses['202']).toBeDefined();
    expect(doc.paths['/scans'].post.responses['403']).toBeDefined();
    expect(doc.paths['/scans/rescan-all'].post.responses['202']).toBeDefined();
  });
  it('documents every error response as JSON only, whatever the success body is', () => {
    const errors = operations().flatMap(({ path, method, op }) =>
      Object.entries(op.responses as Json)
        .filter(([status]) => Number(status) >= 400)
        .map(([status, response]) => [method, path, status, Object.keys((response as Json).content ?? {})]),
    );
    expect(errors.length).toBeGreaterThan(60);
    for (const [method, path, status, types] of errors) {
      expect([method, path, status, types]).toEqual([method, path, status, ['application/json']]);
    }
    // The routes whose success body is not JSON, where the old document listed their media types for errors too.
    expect(Object.keys(doc.paths['/export'].get.responses['400'].content)).toEqual(['application/json']);
    expect(Object.keys(doc.paths['/subdomains/stream'].get.responses['503'].content)).toEqual(['application/json']);
    expect(Object.keys(doc.paths['/platforms/{slug}/subdomains'].get.responses['404'].content)).toEqual([
      'application/json',
    ]);
  });

  it('answers those errors as JSON, as documented', async () => {
    const key = await t.token();
    const auth = { authorization: `Bearer ${key}` };
    for (const path of [
      '/export?scope=bogus',
      '/subdomains/stream?domain=nope.example',
      '/platforms/nope/subdomains?format=txt',
    ]) {
      const res = await t.get(path, auth);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([
        path,
        expect.any(Number),
        expect.stringMatching(/^application\/json/),
      ]);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
  });

  it('does not call the opaque API keys JWTs', () => {
    expect(doc.components.securitySchemes.bearer).not.toHaveProperty('bearerFormat');
  });

  it('declares X-Request-Id once and on every response of every operation', () => {
    expect(doc.components.headers['X-Request-Id']).toMatchObject({ required: true, schema: { type: 'string' } });
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        expect([method, path, status, (response as Json).headers?.['X-Request-Id']]).toEqual([
          method,
          path,
          status,
          { $ref: '#/components/headers/X-Request-Id' },
        ]);
      }
    }
  });

  it('describes limit as clamped, not as a maximum the service would refuse', async () => {
    const limits = operations().flatMap(({ path, op }) =>
      ((op.parameters ?? []) as Json[]).filter((p) => p.name === 'limit').map((p) => ({ path, param: p })),
    );
    expect(limits.length).toBeGreaterThanOrEqual(9);
    for (const { path, param } of limits) {
      expect([path, param.schema.maximum]).toEqual([path, undefined]);
      expect([path, param.description]).toEqual([path, expect.stringMatching(/clamped to \d+/)]);
    }
    const domains = (doc.paths['/domains'].get.parameters as Json[]).find((p) => p.name === 'limit');
    expect(domains?.description).toContain('clamped to 1000');
    // …which is what the service does: a larger value is answered, with the limit it used.
    const res = await t.get('/domains?limit=5000', { authorization: `Bearer ${await t.token()}` });
    expect([res.status, res.body.meta.limit]).toEqual([200, 1000]);
  });

  it('declares every tag it uses, with a description, and describes every operation', () => {
    const declared = new Map((doc.tags as Json[]).map((tag) => [tag.name as string, tag.description as string]));
    for (const { path, method, op } of operations()) {
      for (const tag of op.tags as string[])
        expect([method, path, tag, declared.get(tag)]).toEqual([method, path, tag, expect.any(String)]);
      expect([method, path, op.description]).toEqual([method, path, expect.stringMatching(/\S{3}/)]);
    }
    for (const [name, description] of declared) expect([name, description.length > 10]).toEqual([name, true]);
  });

  it('names its servers relative to where it is served, so its paths resolve there', async () => {
    const documentUrl = `${t.baseUrl}/api/v1/openapi.json`;
    for (const server of doc.servers as Json[]) {
      const status = await fetchStatus(new URL(`${server.url}/openapi.json`, documentUrl));
      expect([server.url, status]).toEqual([server.url, 200]);
    }
  });
});

describe('GET /openapi.json with PUBLIC_URL', () => {
  it('names its servers under PUBLIC_URL, as the configuration docs say', async () => {
    const t = await startTestApp({ PUBLIC_URL: 'https://monitor.example.com/tools/' });
    try {
      const doc = (await t.get('/openapi.json')).body;
      expect(doc.servers.map((s: Json) => s.url)).toEqual([
        'https://monitor.example.com/tools/api/v1',
        'https://monitor.example.com/tools/api/public/v1',
      ]);
    } finally {
      await t.close();
    }
  });
});
