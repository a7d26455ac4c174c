import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuiltServer, startBuiltServer } from './fixtures/built-server.js';
import { createTestDatabase } from './fixtures/test-database.js';
import { waitFor } from './fixtures/wait.js';
import { fetchStatus } from './fixtures/http.js';

const LIBRARY_WARNING = `data:text/javascript,${encodeURIComponent(
  `process.on('SIGUSR2', () => console.warn('[Cron] Missed execution deadline by %dms for job %o', 1503, 'scan-worker'))`,
)}`;

/** The service as `npm start` runs it: the compiled dist/main.js in its own Node process. */
describe('the built service', () => {
  let server: BuiltServer;
  let dataDir: string;
  let dropDatabase: () => Promise<void> = async () => {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sm-built-'));
    // SIGUSR2 makes the process write as a library does: cron's warning of a tick the process was too busy to make.
    const env: Record<string, string> = { DATA_DIR: dataDir, NODE_OPTIONS: `--import=${LIBRARY_WARNING}` };
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
    expect(await fetchStatus(`${server.baseUrl}/health/ready`)).toBe(200);
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

  it('logs each request as one JSON line: request id, method, route, status, duration; credentials redacted', async () => {
    const secret = `sm_live_${'k'.repeat(40)}`;
    const response = await fetch(`${server.baseUrl}/api/v1/domains/example.com?x=1`, {
      headers: {
        Authorization: `Bearer ${secret}`,
        'X-API-Key': secret,
        Cookie: 'sm_session=abc',
        'X-Request-Id': 'trace-42',
      },
    });
    expect(response.status).toBe(401);
    const line = await waitForLine(server, (l) => l.reqId === 'trace-42');
    expect(line).toMatchObject({
      level: 'info',
      msg: 'GET /api/v1/domains/:domain 401',
      req: {
        id: 'trace-42',
        method: 'GET',
        route: '/api/v1/domains/:domain',
        url: '/api/v1/domains/example.com?x=1',
        headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', cookie: '[redacted]' },
      },
      res: { statusCode: 401 },
    });
    expect(typeof line.duration_ms).toBe('number');
    expect(new Date(line.time as string).toISOString()).toBe(line.time);
    expect(server.output()).not.toContain('k'.repeat(12));
    expect(server.output()).not.toContain('sm_session=abc');
  });

  it('logs requests the router itself refuses, and probes only at debug', async () => {
    expect(await fetchStatus(`${server.baseUrl}/api/v1/domains/%zz`, { headers: { 'X-Request-Id': 'bad-path' } })).toBe(
      404,
    );
    const line = await waitForLine(server, (l) => l.reqId === 'bad-path');
    expect(line).toMatchObject({ msg: 'GET unmatched 404', res: { statusCode: 404 } });
    expect(server.output().match(/"reqId":"bad-path"/g)).toHaveLength(1);
    await fetchStatus(`${server.baseUrl}/health/live`, { headers: { 'X-Request-Id': 'probe-1' } });
    await fetchStatus(`${server.baseUrl}/api/v1/`, { headers: { 'X-Request-Id': 'after-probe' } });
    await waitForLine(server, (l) => l.reqId === 'after-probe');
    expect(server.output()).not.toContain('probe-1'); // LOG_LEVEL=info
  });

  it("writes a library's console lines as JSON lines too", async () => {
    server.process.kill('SIGUSR2');
    const line = await waitForLine(server, (l) => l.context === 'Console');
    expect(line).toMatchObject({
      level: 'warn',
      msg: "[Cron] Missed execution deadline by 1503ms for job 'scan-worker'",
    });
  });

  it('logs JSON lines and stops cleanly on SIGTERM', async () => {
    const lines = server.output().trim().split('\n');
    expect(() => lines.map((l) => JSON.parse(l) as unknown)).not.toThrow();
    const code = await server.stop('SIGTERM');
    expect(code).toBe(0);
  });
});

type LogLine = Record<string, unknown> & { reqId?: string };

/** The first JSON line of the server's output that matches; a response is logged once it has been sent. */
function waitForLine(server: BuiltServer, match: (line: LogLine) => boolean): Promise<LogLine> {
  const lines = () =>
    server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  return waitFor('the log line', () => lines().find(match), {
    ms: 10_000,
    context: () => server.output().slice(-3000),
  });
}
