import { createServer, type Server } from 'node:http';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { runCli } from './fixtures/cli.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { waitFor, within } from './fixtures/wait.js';

/** SIGTERM to a worker process while a webhook endpoint takes its time to answer: built processes, one database. */
describe('webhook deliveries at shutdown', () => {
  let crt: LoopbackCrtsh;
  let db: ProcessDatabase;
  let token: string;
  let receiver: Server;
  let url: string;
  /** Each delivery's body, as it arrived; each is answered 200 two seconds later. */
  const hits: string[] = [];
  const servers: BuiltServer[] = [];

  const cli = async (...args: string[]) => {
    const r = await runCli(args, { ...db.env, LOG_LEVEL: 'error' });
    if (r.code !== 0) throw new Error(`cli ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim();
  };

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    db = await createProcessDatabase('sm-hook-stop-');
    token = (await cli('tokens', 'create', '--name', 'hook-stop', '--scopes', 'read,write')).split('\n').at(-1)!;
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        hits.push(body);
        setTimeout(() => res.writeHead(200).end('ok'), 2000);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  });
  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await db.close();
    await crt.close();
  });

  const start = async () => {
    const server = await startBuiltServer({
      ...db.env,
      CRTSH_URL: crt.url,
      SCAN_SOURCES: 'crtsh',
      WORKER: 'on',
      WORKER_CRON: '* * * * * *',
      SHUTDOWN_TIMEOUT: '10',
    });
    servers.push(server);
    return server;
  };
  const stop = (server: BuiltServer) => {
    servers.splice(servers.indexOf(server), 1);
    return server.stop('SIGTERM');
  };
  const hosts = (body: string) => (JSON.parse(body) as { hosts: { host: string }[] }).hosts.map((h) => h.host);

  it('lets a delivery in flight finish and records it: the next process never sends it again', async () => {
    await cli('domains', 'add', 'hooked.test', '--platform', 'self');
    const hook = (await cli('webhooks', 'add', url, '--domain', 'hooked.test')).split('\n').at(-1)!;
    crt.names.set('hooked.test', ['a.hooked.test']);
    const first = await start();
    const step = <T>(what: string, promise: Promise<T>, server: BuiltServer) =>
      within(what, promise, { ms: 60_000, context: server.output });
    await step(
      'the delivery to arrive',
      waitFor('the delivery', () => (hits.length > 0 ? true : undefined)),
      first,
    );

    // SIGTERM while the receiver still holds its answer.
    expect(await step('the process to exit', stop(first), first)).toBe(0);
    expect(first.output()).not.toMatch(/cut at the shutdown deadline/);

    // The next process on the same database. A later scan's delivery to the same webhook comes after any delivery
    // still due for it (one at a time, earliest first): once it has arrived, a repeat would have come before it.
    const second = await start();
    crt.names.set('hooked.test', ['a.hooked.test', 'b.hooked.test']);
    const queued = await fetch(`${second.baseUrl}/api/v1/scans`, {
      method: 'POST',
      headers: { 'x-api-key': token, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'hooked.test' }),
    });
    expect(queued.status).toBe(202);
    await queued.arrayBuffer();
    await step(
      'the later delivery',
      waitFor('the later delivery', () => (hits.length > 1 ? true : undefined)),
      second,
    );
    const recorded = await step(
      'both deliveries recorded',
      waitFor('both deliveries recorded', async () => {
        const row = (await cli('webhooks', 'list')).split('\n').find((line) => line.startsWith(hook));
        // ID, URL, FOR, FORMAT, TYPES, SIGNED, DELIVERED, GIVEN UP, FAILURES, LAST STATUS, LAST ATTEMPT
        const [delivered, givenUp, failures, lastStatus] = row?.split(/\s{2,}/).slice(6, 10) ?? [];
        return delivered === '2' ? { delivered, givenUp, failures, lastStatus } : undefined;
      }),
      second,
    );
    expect(hits.map(hosts)).toEqual([['a.hooked.test'], ['b.hooked.test']]);
    expect(recorded).toEqual({ delivered: '2', givenUp: '0', failures: '0', lastStatus: '200' });
    expect(await stop(second)).toBe(0);
  }, 240_000);
});
