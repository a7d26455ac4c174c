import { Validator } from '@seriousme/openapi-schema-validator';
import { type TestApp, startTestApp } from '../fixtures/test-app.js';

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
        expect(op.security).toBeUndefined();
        continue;
      }
      expect([method, path, op.security]).toEqual([method, path, [{ bearer: [] }, { api_key: [] }]]);
      expect(op.responses['401']).toBeDefined();
      expect(op.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBodyDto');
    }
  });

  it('describes the parameters with their types, defaults, maxima and enums', () => {
    const param = (path: string, name: string) =>
      (doc.paths[path].get.parameters as Json[]).find((p) => p.name === name)?.schema as Json;
    expect(param('/domains', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect(param('/domains', 'sort')).toMatchObject({
      enum: ['domain', 'total_subdomains', 'new_subdomains_last_scan', 'last_scanned_at'],
      default: 'domain',
    });
    expect(param('/domains', 'enabled')).toMatchObject({ type: 'boolean' });
    expect(param('/subdomains/new', 'limit')).toMatchObject({ maximum: 2000, default: 500 });
    expect(param('/subdomains/new', 'since')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(param('/subdomains/new', 'hours')).toMatchObject({ type: 'integer', default: 24 });
    expect(param('/platforms/{slug}/subdomains', 'limit')).toMatchObject({ maximum: 10000, default: 1000 });
    expect(param('/platforms/{slug}/subdomains', 'active')).toMatchObject({ type: 'boolean', default: true });
    expect(param('/scans', 'limit')).toMatchObject({ maximum: 500, default: 50 });
    expect(param('/stats/top-domains', 'limit')).toMatchObject({ maximum: 200, default: 20 });
    expect(param('/stats/timeseries', 'bucket')).toMatchObject({
      enum: ['hour', 'day', 'week', 'month'],
      default: 'hour',
    });
    const q = (doc.paths['/subdomains/search'].get.parameters as Json[]).find((p) => p.name === 'q');
    expect(q).toMatchObject({ required: true, schema: { minLength: 2 } });
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
});
