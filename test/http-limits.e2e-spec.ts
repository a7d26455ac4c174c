import type { IncomingMessage } from 'node:http';
import { type Socket, connect } from 'node:net';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { cliOn } from './fixtures/cli.js';
import { openUnread, readRest } from './fixtures/http.js';
import { waitFor, within } from './fixtures/wait.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// json rows of this many hosts (~8 MB) cannot all sit in a stalled client's socket buffers.
const HOSTS = 60_000;

/**
 * What one client can hold of a process: exports it never reads, requests it never finishes sending, idle
 * connections. Built servers, real sockets, as an attacker holds them.
 */
describe('HTTP limits', () => {
  let db: ProcessDatabase;
  let token: string;
  const servers: BuiltServer[] = [];
  const sockets: Socket[] = [];
  const responses: IncomingMessage[] = [];

  const cli = cliOn(() => ({ ...db.env }));

  beforeAll(async () => {
    db = await createProcessDatabase('sm-limits-');
    await cli('seed-demo', '--domains', '20', '--hosts', String(HOSTS));
    token = await cli('tokens', 'create', '--name', 'limits-test', '--scopes', 'read,write');
  }, 180_000);
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const r of responses.splice(0)) r.destroy();
    for (const s of servers.splice(0)) await s.stop('SIGKILL'); // one process at a time on a data directory
  });
  afterAll(() => db.close());

  const start = async (extra: Record<string, string>) => {
    const server = await startBuiltServer({ ...db.env, WORKER: 'off', DATABASE_POOL_SIZE: '4', ...extra });
    servers.push(server);
    return server;
  };

  /** Opens an export and never reads its body: the response comes back paused. */
  const openExport = async (server: BuiltServer) => {
    const res = await openUnread(`${server.baseUrl}/api/v1/export?format=json`, { 'x-api-key': token });
    responses.push(res);
    return res;
  };
  const bodyOf = readRest;
  const timed = async (server: BuiltServer, path: string) => {
    const started = Date.now();
    const res = await fetch(`${server.baseUrl}${path}`, { headers: { 'x-api-key': token } });
    await res.arrayBuffer();
    return { status: res.status, ms: Date.now() - started };
  };

  it('exports a client never reads hold no connection: key checks and readiness go on, the rest wait then get 503, idle ones are aborted', async () => {
    const server = await start({ EXPORT_MAX_CONCURRENT: '4', EXPORT_WAIT_SECONDS: '1', EXPORT_IDLE_SECONDS: '4' });
    const step = <T>(what: string, ms: number, promise: Promise<T>) =>
      within(what, promise, { ms, context: server.output });
    // Ten clients open an export and stop reading. Two run (DATABASE_POOL_SIZE − 2 on a server, two on the embedded
    // database); the others wait one second for a slot, then are told to come back.
    const opened = await step(
      'ten export responses',
      30_000,
      Promise.all(Array.from({ length: 10 }, () => openExport(server))),
    );
    const running = opened.filter((r) => r.statusCode === 200);
    const refused = opened.filter((r) => r.statusCode === 503);
    expect(running).toHaveLength(2);
    expect(refused).toHaveLength(8);
    for (const res of refused) {
      expect(res.headers['retry-after']).toBe('1');
      const body = JSON.parse((await bodyOf(res)).text) as Json;
      expect(body).toEqual({
        error: { code: 'service_unavailable', message: expect.stringMatching(/exports/) },
        request_id: res.headers['x-request-id'],
      });
    }

    // Meanwhile every key-checked request and the readiness probe answer at once.
    for (let i = 0; i < 5; i++) {
      const me = await timed(server, '/api/v1/me');
      expect(me.status).toBe(200);
      expect(me.ms).toBeLessThan(3000);
      const hosts = await timed(server, '/api/v1/domains?limit=5');
      expect(hosts.status).toBe(200);
    }
    expect((await timed(server, '/health/ready')).status).toBe(200);

    // The stalled exports are cut after EXPORT_IDLE_SECONDS without data taken; their slots are free again. A paused
    // client notices only once it reads again: what it then gets ends before the export's end.
    const aborted = () => server.output().match(/Export aborted: its client took no data for 4 s/g)?.length ?? 0;
    await waitFor('the idle exports to be aborted', () => (aborted() === 2 ? true : undefined), {
      ms: 20_000,
      context: server.output,
    });
    for (const res of running) {
      const { text, complete } = await step('the rest of a cut export', 10_000, bodyOf(res));
      expect(complete).toBe(false);
      expect(text.trimEnd().endsWith(']')).toBe(false);
    }
    const again = await fetch(`${server.baseUrl}/api/v1/export?format=txt`, { headers: { 'x-api-key': token } });
    expect(again.status).toBe(200);
    expect((await again.text()).split('\n').filter(Boolean)).toHaveLength(HOSTS);
  }, 120_000);

  it('twenty honest concurrent exports never starve /me: each is whole or refused with Retry-After', async () => {
    const server = await start({ EXPORT_WAIT_SECONDS: '2' });
    let done = false;
    const latencies: number[] = [];
    const probing = (async () => {
      while (!done) {
        const me = await timed(server, '/api/v1/me');
        expect(me.status).toBe(200);
        latencies.push(me.ms);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const exports = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await fetch(`${server.baseUrl}/api/v1/export?format=txt`, { headers: { 'x-api-key': token } });
        const text = await res.text();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), lines: text.split('\n').length - 1 };
      }),
    );
    done = true;
    await probing;
    expect(exports.filter((e) => e.status === 200).length).toBeGreaterThanOrEqual(2);
    for (const e of exports) {
      if (e.status === 200) expect(e.lines).toBe(HOSTS);
      else expect(e).toMatchObject({ status: 503, retryAfter: '2' });
    }
    expect(latencies.length).toBeGreaterThan(0);
    expect(Math.max(...latencies)).toBeLessThan(3000);
  }, 120_000);

  /** A raw connection that sends `head` and then one byte of body every `everyMs`; resolves what the server said. */
  const trickle = (server: BuiltServer, everyMs: number) => {
    const { port } = new URL(server.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', () => undefined);
    socket.write(
      'POST /api/v1/scans HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `X-API-Key: ${token}\r\nContent-Length: 16384\r\n\r\n{`,
    );
    const timer = setInterval(() => socket.writable && socket.write(' '), everyMs);
    return new Promise<{ received: string; openMs: number }>((resolve) => {
      const started = Date.now();
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ received, openMs: Date.now() - started });
      });
    });
  };

  it('cuts a client that trickles its body after REQUEST_TIMEOUT_SECONDS, with a 408 in the error shape', async () => {
    const server = await start({ REQUEST_TIMEOUT_SECONDS: '2' });
    const ends = Array.from({ length: 50 }, () => trickle(server, 200));
    const results = await within('the trickling connections to be closed', Promise.all(ends), {
      ms: 15_000,
      context: server.output,
    });
    for (const { received, openMs } of results) {
      expect(openMs).toBeLessThan(6000);
      expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as Json;
      expect(body).toEqual({
        error: { code: 'request_timeout', message: 'The request was not received in time' },
        request_id: expect.any(String),
      });
      expect(received).toContain(`X-Request-Id: ${body.request_id}\r\n`);
    }
    // Honest requests are untouched.
    expect((await timed(server, '/api/v1/me')).status).toBe(200);
  }, 60_000);

  it('closes connections past HTTP_MAX_CONNECTIONS at once, and idle keep-alive ones after KEEP_ALIVE_TIMEOUT_SECONDS', async () => {
    const server = await start({ HTTP_MAX_CONNECTIONS: '16', KEEP_ALIVE_TIMEOUT_SECONDS: '1' });
    const { port } = new URL(server.baseUrl);
    const open = () =>
      new Promise<Socket>((resolve, reject) => {
        const s = connect(Number(port), '127.0.0.1', () => resolve(s));
        sockets.push(s);
        s.on('error', reject);
        s.resume(); // reads, so a close by the server is seen
      });
    const closed = (s: Socket) =>
      new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

    // One keep-alive request, answered, then nothing: the server closes the connection about a second later.
    const keptAlive = await open();
    const startedIdle = Date.now();
    keptAlive.write(`GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${token}\r\n\r\n`);
    await within('the idle keep-alive connection to be closed', closed(keptAlive), { ms: 8000 });
    expect(Date.now() - startedIdle).toBeLessThan(6000);

    const held = await Promise.all(Array.from({ length: 16 }, open));
    const extra = await open().catch(() => undefined);
    if (extra) await within('the 17th connection to be closed', closed(extra), { ms: 5000 });
    for (const s of held) s.destroy();
    await waitFor(
      'a connection to be accepted again',
      async () => ((await timed(server, '/api/v1/me')).status === 200 ? true : undefined),
      {
        ms: 10_000,
      },
    );
  }, 60_000);
});
