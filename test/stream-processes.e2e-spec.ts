import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { cliOn, runCli } from './fixtures/cli.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { SseClient } from './fixtures/sse.js';
import { waitFor } from './fixtures/wait.js';

/**
 * Push across processes, as operators run it: an API process (WORKER=off) serves the stream, a worker process
 * (HTTP=off) scans and delivers webhooks, and only PostgreSQL connects them. The API's streams poll once an hour
 * here, so events that arrive within seconds came through LISTEN/NOTIFY.
 */
describe('live stream and webhooks across processes', () => {
  let crt: LoopbackCrtsh;
  let db: ProcessDatabase;
  let hook: Server;
  let hookUrl: string;
  const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
  const servers: BuiltServer[] = [];
  const secret = 'whsec-process-test-0123';

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    db = await createProcessDatabase('sm-push-');
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;
  });
  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await db.close();
    await crt.close();
    await new Promise((resolve) => hook.close(resolve));
  });

  const cli = cliOn(() => ({ ...db.env }));

  (process.env.TEST_DATABASE_URL ? it : it.skip)(
    'a worker process scan reaches an API process stream and a signed webhook; a client that reconnects gets every host once',
    async () => {
      await cli('domains', 'add', 'acme.test', '--platform', 'hackerone');
      const added = await runCli(['webhooks', 'add', hookUrl, '--secret'], { ...db.env, LOG_LEVEL: 'error' }, secret);
      expect([added.code, added.stderr]).toEqual([0, expect.stringContaining('(json, signed)')]);
      const token = await cli('tokens', 'create', '--name', 'push', '--scopes', 'read,write');
      const common = { ...db.env, CRTSH_URL: crt.url, SCAN_SOURCES: 'crtsh', WORKER_CRON: '* * * * * *' };
      const api = await startBuiltServer({
        ...common,
        WORKER: 'off',
        STREAM_POLL_SECONDS: '3600',
        STREAM_HEARTBEAT_SECONDS: '1',
      });
      servers.push(api);
      servers.push(await startBuiltServer({ ...common, HTTP: 'off', WORKER: 'on' }));
      const headers = { 'x-api-key': token };
      const queue = async (domain: string) => {
        const res = await fetch(`${api.baseUrl}/api/v1/scans`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ domain }),
        });
        expect(res.status).toBe(202);
      };
      const stream = (extra: Record<string, string> = {}) =>
        SseClient.open(`${api.baseUrl}/api/v1/subdomains/stream?platform=hackerone`, { ...headers, ...extra });

      // The worker scans the domain as soon as it starts (it is due once added). Wait for that scan to end, so
      // that the names below are read by the scan queued for them, in one delivery.
      await waitFor('the first scheduled scan to end', async () => {
        const res = await fetch(`${api.baseUrl}/api/v1/scans?domain=acme.test&limit=1`, { headers });
        const [scan] = ((await res.json()) as { data: { status: string }[] }).data;
        return scan && scan.status !== 'running' ? true : undefined;
      });
      const first = await stream();
      expect(first.status).toBe(200);
      crt.names.set('acme.test', ['a.acme.test', 'b.acme.test', 'c.acme.test']);
      await queue('acme.test');
      await first.waitForEvents(3);
      expect(
        first
          .hosts()
          .map((h) => h.host)
          .sort(),
      ).toEqual(['a.acme.test', 'b.acme.test', 'c.acme.test']);

      // Exactly one delivery, signed, with exactly those three hosts.
      await waitFor('the webhook delivery', () => (deliveries.length > 0 ? true : undefined));
      const [delivery] = deliveries;
      expect(delivery.headers['x-subdomain-monitor-signature-256']).toBe(
        `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`,
      );
      const body = JSON.parse(delivery.body);
      expect(body).toMatchObject({ domain: 'acme.test', platform: 'hackerone', new_count: 3 });
      expect(body.hosts.map((h: { host: string }) => h.host).sort()).toEqual([
        'a.acme.test',
        'b.acme.test',
        'c.acme.test',
      ]);

      // The client goes away after the first event; two more hosts are found meanwhile.
      const resumeAt = first.events[0].id!;
      await first.close();
      crt.names.set('acme.test', ['a.acme.test', 'b.acme.test', 'c.acme.test', 'd.acme.test', 'e.acme.test']);
      await queue('acme.test');
      await waitFor('the second delivery', () => (deliveries.length > 1 ? true : undefined));
      expect(
        JSON.parse(deliveries[1].body)
          .hosts.map((h: { host: string }) => h.host)
          .sort(),
      ).toEqual(['d.acme.test', 'e.acme.test']);

      const resumed = await stream({ 'last-event-id': resumeAt });
      await resumed.waitForEvents(4);
      await resumed.quiet();
      const seen = [first.events[0], ...resumed.events].map((e) => JSON.parse(e.data!).host);
      expect(seen.slice().sort()).toEqual(['a.acme.test', 'b.acme.test', 'c.acme.test', 'd.acme.test', 'e.acme.test']);
      expect(new Set(seen).size).toBe(5);
      expect(deliveries).toHaveLength(2);

      // Shutting the API down ends the open stream at once instead of waiting out the drain.
      const stopping = Date.now();
      expect(await api.stop('SIGTERM')).toBe(0);
      servers.splice(servers.indexOf(api), 1);
      await resumed.untilEnded();
      expect(resumed.ended).toBe(true);
      expect(Date.now() - stopping).toBeLessThan(10_000);
    },
  );
});
