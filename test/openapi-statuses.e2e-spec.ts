import { connect } from 'node:net';
import { ResponseValidator } from './fixtures/openapi-validator.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ID = '00000000-0000-4000-8000-000000000000';
/** A request path for a documented path: a value for each parameter that routes (its resource need not exist). */
const concrete = (path: string) =>
  `/api/v1${path}`
    .replace('{domain}', 'example.com')
    .replace('{host}', 'api.example.com')
    .replace('{slug}', 'hackerone')
    .replace(/\{[a-z_]+\}/g, ID);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Json;
}

/** Writes `request` on a fresh connection, reads until the server closes it or answers whole. */
function exchange(port: number, request: string, endAfterWrite = true): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(request);
      if (endAfterWrite) socket.end();
    });
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = [
        received.slice(0, received.indexOf('\r\n\r\n')),
        received.slice(received.indexOf('\r\n\r\n') + 4),
      ];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const text = headers['transfer-encoding'] === 'chunked' ? unchunk(body) : body;
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text ? (JSON.parse(text) as Json) : {} });
    });
  });
}

function unchunk(body: string): string {
  let out = '';
  for (let at = 0; ;) {
    const end = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, end), 16);
    if (!size) return out;
    out += body.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}

/**
 * The statuses the document states for every operation (400, 405, 408, 431, and 413 where a body is read), which no
 * route's code answers: each is provoked at every operation, over raw sockets where a client library would not send
 * the request, and its answer is held to the document.
 */
describe('the statuses every operation documents', () => {
  let t: TestApp;
  let port: number;
  let doc: Json;
  let validator: ResponseValidator;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ REQUEST_TIMEOUT_SECONDS: 1 });
    port = Number(new URL(t.baseUrl).port);
    doc = t.openapi;
    validator = new ResponseValidator(t.openapi);
    auth = bearer(await t.token(['read', 'write']));
  });
  afterAll(() => t.close());

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Json })),
    );

  /** The answer held to the document's entry for the operation and status: [] when it matches. */
  const problems = (method: string, path: string, answer: RawAnswer) => [
    ...validator.check(method, concrete(path), answer.status, answer.headers['content-type'] ?? '', answer.body),
    ...(answer.headers['x-request-id'] === answer.body.request_id ? [] : ['X-Request-Id is not the request_id']),
  ];

  it('lists 400, 405, 408 and 431 on every operation and 413 wherever a body is read, as the error body', () => {
    expect(operations().length).toBeGreaterThan(30);
    for (const { path, method, op } of operations()) {
      const statuses = [400, 405, 408, 431, ...(method === 'GET' ? [] : [413])];
      for (const status of statuses) {
        const response = op.responses[String(status)];
        expect([method, path, status, response?.content?.['application/json']?.schema]).toEqual([
          method,
          path,
          status,
          { $ref: '#/components/schemas/ErrorBodyDto' },
        ]);
      }
      expect(op.responses['405'].headers.Allow).toEqual({ $ref: '#/components/headers/Allow' });
      expect(op.responses['400'].description).toContain('invalid_body');
    }
  });

  it('answers a malformed header with 400 invalid_body at every operation, as documented', async () => {
    for (const { path, method } of operations()) {
      const answer = await exchange(port, `${method} ${concrete(path)} HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n`);
      expect([method, path, answer.status, answer.body.error?.code]).toEqual([method, path, 400, 'invalid_body']);
      expect([method, path, problems(method, path, answer)]).toEqual([method, path, []]);
    }
  });

  it('answers headers over the limit with 431 at every operation, as documented', async () => {
    const big = `X-Big: ${'x'.repeat(20_000)}\r\n`;
    for (const { path, method } of operations()) {
      const answer = await exchange(port, `${method} ${concrete(path)} HTTP/1.1\r\nHost: x\r\n${big}\r\n`);
      expect([method, path, answer.status, answer.body.error?.code]).toEqual([method, path, 431, 'payload_too_large']);
      expect([method, path, problems(method, path, answer)]).toEqual([method, path, []]);
    }
  });

  it('answers a request that does not arrive in time with 408 at every operation, as documented', async () => {
    // The headers never end: Node answers once REQUEST_TIMEOUT_SECONDS (1) has passed, and closes the connection.
    const answers = await Promise.all(
      operations().map(({ path, method }) =>
        exchange(port, `${method} ${concrete(path)} HTTP/1.1\r\nHost: x\r\n`, false).then((answer) => ({
          path,
          method,
          answer,
        })),
      ),
    );
    for (const { path, method, answer } of answers) {
      expect([method, path, answer.status, answer.body.error?.code]).toEqual([method, path, 408, 'request_timeout']);
      expect([method, path, problems(method, path, answer)]).toEqual([method, path, []]);
    }
  }, 30_000);

  it('answers a body over 16 KiB with 413 at every operation that reads one, as documented', async () => {
    const body = JSON.stringify({ domain: 'x'.repeat(20_000) });
    for (const { path, method } of operations().filter((o) => o.method !== 'GET')) {
      const res = await t.request(method, concrete(path), {
        body,
        headers: { ...auth, 'content-type': 'application/json' },
      });
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 413, 'payload_too_large']);
    }
  });

  it('answers each method a documented path does not have with 405 and the path’s true Allow', async () => {
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      const documented = Object.keys(item as Json).map((m) => m.toUpperCase());
      const allowed = METHODS.filter((m) => documented.includes(m) || (m === 'HEAD' && documented.includes('GET')));
      for (const method of METHODS.filter((m) => !allowed.includes(m))) {
        for (const headers of [{}, auth]) {
          const res = await t.request(method, concrete(path), { headers });
          expect([method, path, res.status, res.headers.get('allow')]).toEqual([method, path, 405, allowed.join(', ')]);
        }
      }
    }
  });

  it('answers GET /scans/rescan-all, which is no scan id but the path of POST, with the 405 GET /scans/{id} documents', async () => {
    const res = await t.request('GET', '/scans/rescan-all', { headers: auth });
    expect([res.status, res.headers.get('allow'), res.body.error.code]).toEqual([405, 'POST', 'method_not_allowed']);
    expect(validator.check('GET', concrete('/scans/{id}'), 405, 'application/json', res.body)).toEqual([]);
  });
});
