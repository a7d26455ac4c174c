import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuiltServer, startBuiltServer } from './fixtures/built-server.js';
import { createTestDatabase } from './fixtures/test-database.js';

/** The service as `npm start` runs it: the compiled dist/main.js in its own Node process. */
describe('the built service', () => {
  let server: BuiltServer;
  let dataDir: string;
  let dropDatabase: () => Promise<void> = async () => {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sm-built-'));
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (process.env.TEST_DATABASE_URL) {
      const db = await createTestDatabase();
      env.DATABASE_URL = db.url as string;
      dropDatabase = db.close;
    }
    server = await startBuiltServer(env);
  });
  afterAll(async () => {
    await server?.stop();
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the index and health probes', async () => {
    const index = await fetch(`${server.baseUrl}/api/v1/`);
    expect(index.status).toBe(200);
    expect(((await index.json()) as { data: { version: string } }).data.version).toBe('1');
    expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);
  });

  it('serves Swagger UI at /docs from the same document, without a token', async () => {
    const page = await fetch(`${server.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    const init = await fetch(`${server.baseUrl}/docs/swagger-ui-init.js`);
    expect(init.status).toBe(200);
    const script = await init.text();
    expect(script).toContain('"openapi": "3.1.0"');
    expect(script).toContain('/subdomains/new');
  });

  it('logs JSON lines and stops cleanly on SIGTERM', async () => {
    const lines = server.output().trim().split('\n');
    expect(() => lines.map((l) => JSON.parse(l) as unknown)).not.toThrow();
    const code = await server.stop('SIGTERM');
    expect(code).toBe(0);
  });
});
