import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { hashToken } from '../src/auth/token.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';

describe('token authentication', () => {
  let t: TestApp;
  let reader: string;
  let writer: string;

  beforeAll(async () => {
    t = await startTestApp();
    reader = await t.token(['read'], 'reader');
    writer = await t.token(['read', 'write'], 'writer');
    await t.dataSource.query(`INSERT INTO domains (domain, platform_slug) VALUES ('example.com', 'self')`);
  });
  afterAll(() => t.close());

  it('accepts the key as a Bearer token and as X-API-Key alike', async () => {
    const viaBearer = await t.get('/me', bearer(reader));
    const viaHeader = await t.get('/me', { 'x-api-key': reader });
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body).toEqual({ data: { user_id: 'user-1', key: { name: 'reader', scopes: ['read'] } } });
    expect(viaHeader.body).toEqual(viaBearer.body);
  });

  it('answers 401 missing_token when neither header is sent', async () => {
    expectError(await t.get('/me'), 401, 'missing_token');
    expectError(await t.get('/me', { authorization: '' }), 401, 'missing_token');
  });

  it.each([
    ['a malformed key', { 'x-api-key': 'not-a-key' }],
    ['a well-formed unknown key', { 'x-api-key': `sm_live_${'A'.repeat(40)}` }],
    ['a key with the wrong prefix', { 'x-api-key': `sk_live_${'A'.repeat(40)}` }],
    ['a non-Bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('answers 401 invalid_token for %s', async (_, headers) => {
    expectError(await t.get('/me', headers), 401, 'invalid_token');
  });

  it('answers 401 invalid_token when the two headers carry different keys', async () => {
    expectError(await t.get('/me', { ...bearer(reader), 'x-api-key': writer }), 401, 'invalid_token');
  });

  it('answers 401 revoked_token on the very next request after revocation', async () => {
    const token = await t.token(['read'], 'to-revoke');
    expect((await t.get('/me', bearer(token))).status).toBe(200);
    await t.dataSource.query(`UPDATE api_keys SET revoked_at = now() WHERE name = 'to-revoke'`);
    expectError(await t.get('/me', bearer(token)), 401, 'revoked_token');
    expectError(await t.get('/api/public/v1/me', { 'x-api-key': token }), 401, 'revoked_token');
  });

  it('answers 401 revoked_token for a key whose owner is disabled, and records no use of it', async () => {
    const [{ id }] = await t.dataSource.query(
      `INSERT INTO users (email, password_hash) VALUES ('gone@example.com', 'x') RETURNING id`,
    );
    const token = (await t.app.get(ApiKeysService).create('owner-disabled', id, ['read'])).token;
    expect((await t.get('/me', bearer(token))).status).toBe(200);
    await t.dataSource.query(`UPDATE users SET disabled_at = now() WHERE id = $1`, [id]);
    await t.dataSource.query(`UPDATE api_keys SET last_used_at = NULL WHERE name = 'owner-disabled'`);
    const refused = await t.get('/me', bearer(token));
    expectError(refused, 401, 'revoked_token');
    expect(refused.body.error.message).toMatch(/owner has been disabled/);
    expectError(await t.get('/api/public/v1/me', { 'x-api-key': token }), 401, 'revoked_token');
    const [key] = await t.dataSource.query(`SELECT last_used_at FROM api_keys WHERE name = 'owner-disabled'`);
    expect(key.last_used_at).toBeNull();
    // A key whose owner names no user (any id may own keys) is unaffected.
    expect((await t.get('/me', bearer(reader))).status).toBe(200);
  });

  it('holds a revocation on the next request in every process: no process keeps a key it has seen', async () => {
    const other = await startTestApp({}, { shareDatabaseOf: t });
    try {
      const token = await t.token(['read'], 'revoked-everywhere');
      expect((await t.get('/me', bearer(token))).status).toBe(200);
      expect((await other.get('/me', bearer(token))).status).toBe(200);
      await t.app.get(ApiKeysService).revoke('revoked-everywhere');
      expectError(await other.get('/me', bearer(token)), 401, 'revoked_token');
      expectError(await t.get('/me', bearer(token)), 401, 'revoked_token');
    } finally {
      await other.close();
    }
  });

  it.each(['/api/v1', '/api/public/v1'])(
    'answers 403 insufficient_scope for a read key on POST %s/scans',
    async (prefix) => {
      const res = await t.post(`${prefix}/scans`, { domain: 'example.com' }, bearer(reader));
      expectError(res, 403, 'insufficient_scope');
    },
  );

  it('lets a write key queue a scan on both prefixes', async () => {
    for (const prefix of ['/api/v1', '/api/public/v1']) {
      const res = await t.post(`${prefix}/scans`, { domain: 'example.com' }, bearer(writer));
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ data: { domain: 'example.com', status: 'queued' } });
    }
  });

  it('stores only the SHA-256 of a key, and records when it was last used', async () => {
    const stored: { key_hash: string; last_used_at: Date | null }[] = await t.dataSource.query(
      `SELECT key_hash, last_used_at FROM api_keys WHERE name = 'reader'`,
    );
    expect(stored[0].key_hash).toBe(hashToken(reader));
    expect(stored[0].last_used_at).toBeInstanceOf(Date);
    const dump = JSON.stringify(await t.dataSource.query(`SELECT * FROM api_keys`));
    expect(dump).not.toContain(reader.slice(8));
    expect(dump).not.toContain(writer.slice(8));
  });
});
