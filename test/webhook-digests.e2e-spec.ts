import { WebhookDeliveryService } from '../src/notify/webhook-delivery.service.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { Receiver } from './fixtures/webhook-receiver.js';
import { crtshWorker, scanThroughApi } from './fixtures/worker.js';

type Body = Record<string, unknown> & { hosts: { host: string }[] };

/**
 * The filters of a webhook (platforms, domains, scope, types, resolving only) and digests, after real scans (a
 * loopback crt.sh), delivered to a loopback receiver. A digest's window is made to have ended by moving its start
 * back, as waiting for it would.
 */
describe('webhook filters and digests', () => {
  let t: TestApp;
  let crt: LoopbackCrtsh;
  let receiver: Receiver;
  let owner: Record<string, string>;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    receiver = await new Receiver().start();
    t = await startTestApp({ ...crtshWorker(crt), WEBHOOK_DIGEST_LAG_SECONDS: 0, CT_WEBHOOK_GATHER_SECONDS: 0 });
    owner = bearer(await t.token(['read', 'write']));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    await crt.close();
  });

  const create = async (body: object) => {
    const res = await t.post('/webhooks', body, owner);
    expect(res.status).toBe(201);
    return res.body.data as { id: string };
  };
  const settle = async () => {
    const worker = t.app.get(WebhookDeliveryService);
    worker.kick();
    await worker.settled();
  };
  /** Ends a digest's window now: it began `minutes` ago. */
  const endWindow = (id: string, minutes: number) =>
    t.dataSource.query(`UPDATE webhooks SET digest_through = now() - make_interval(mins => $2) WHERE id = $1`, [
      id,
      minutes,
    ]);
  const bodies = (path: string) => receiver.at(path).map((r) => JSON.parse(r.body) as Body);
  const hostsOf = (body: Body) => body.hosts.map((h) => h.host).sort();

  it('tells each webhook the hosts of its platforms, domains and scope only', async () => {
    await seedDomain(t, { domain: 'filt.test', platform: 'hackerone' });
    await seedDomain(t, { domain: 'other.test', platform: 'bugcrowd' });
    await t.post('/domains/filt.test/exclusions', { pattern: 'x.filt.test' }, owner);
    await create({ url: `${receiver.url}/in`, domains: ['filt.test'] });
    await create({ url: `${receiver.url}/out`, domains: ['filt.test'], scope: 'out' });
    await create({ url: `${receiver.url}/all`, platforms: ['hackerone'], scope: 'all' });
    await create({ url: `${receiver.url}/bugcrowd`, platforms: ['bugcrowd'] });
    await create({ url: `${receiver.url}/both`, platforms: ['bugcrowd', 'hackerone'], domains: ['other.test'] });

    await scanThroughApi(t, crt, owner, 'filt.test', ['a.filt.test', 'b.filt.test', 'x.filt.test']);
    await waitFor('three deliveries', () => (receiver.received.length >= 3 ? true : undefined));
    await settle();
    expect(bodies('/in').map(hostsOf)).toEqual([['a.filt.test', 'b.filt.test']]);
    expect(bodies('/in')[0].new_count).toBe(2);
    expect(bodies('/out').map(hostsOf)).toEqual([['x.filt.test']]);
    expect(bodies('/out')[0].new_count).toBe(1);
    expect(bodies('/all').map(hostsOf)).toEqual([['a.filt.test', 'b.filt.test', 'x.filt.test']]);
    expect(receiver.at('/bugcrowd')).toHaveLength(0);
    expect(receiver.at('/both')).toHaveLength(0);

    await scanThroughApi(t, crt, owner, 'other.test', ['a.other.test']);
    await waitFor('the bugcrowd deliveries', () => (receiver.at('/both').length > 0 ? true : undefined));
    await settle();
    expect(bodies('/bugcrowd').map(hostsOf)).toEqual([['a.other.test']]);
    expect(bodies('/both').map(hostsOf)).toEqual([['a.other.test']]);
    expect(receiver.at('/all')).toHaveLength(1);

    const listed = (await t.get('/webhooks', owner)).body.data as { domains: string[] | null; scope: string }[];
    expect(listed.map((w) => [w.domains, w.scope])).toEqual([
      [['filt.test'], 'in'],
      [['filt.test'], 'out'],
      [null, 'all'],
      [null, 'in'],
      [['other.test'], 'in'],
    ]);
  });

  it('sends one digest per window with the new hosts and changes of its types, and nothing for an empty one', async () => {
    await seedDomain(t, { domain: 'dig.test', platform: 'intigriti', program: 'Dig' });
    const { id } = await create({
      url: `${receiver.url}/digest`,
      domains: ['dig.test'],
      types: ['host_new', 'dns_changed'],
      digest_minutes: 60,
    });

    // A window in which nothing happened: no delivery, no message, and the window moves on.
    await endWindow(id, 61);
    await settle();
    expect(receiver.at('/digest')).toHaveLength(0);
    expect((await t.get(`/webhooks/${id}/deliveries`, owner)).body.data).toEqual([]);
    const [{ behind }] = await t.dataSource.query(
      `SELECT extract(epoch FROM now() - digest_through)::int AS behind FROM webhooks WHERE id = $1`,
      [id],
    );
    expect(behind).toBeLessThan(5);

    // Two scans and a change: no message as they come, one digest when the window ends.
    await scanThroughApi(t, crt, owner, 'dig.test', ['a.dig.test', 'b.dig.test']);
    await scanThroughApi(t, crt, owner, 'dig.test', ['a.dig.test', 'b.dig.test', 'c.dig.test']);
    await t.dataSource.query(
      `INSERT INTO host_events (type, host_id, domain_id, before, after)
       SELECT 'dns_changed', id, domain_id, '{"status":"nxdomain","a":[],"aaaa":[],"cname":[]}'::jsonb,
              '{"status":"resolved","a":["192.0.2.7"],"aaaa":[],"cname":[]}'::jsonb
         FROM hosts WHERE host = 'a.dig.test'
       UNION ALL
       SELECT 'host_gone', id, domain_id, NULL, NULL FROM hosts WHERE host = 'b.dig.test'`,
    );
    await settle();
    expect(receiver.at('/digest')).toHaveLength(0);

    await endWindow(id, 60);
    await settle();
    const [digest] = bodies('/digest');
    expect(receiver.at('/digest')).toHaveLength(1);
    expect(digest).toMatchObject({ event: 'digest', new_count: 3, event_count: 1, truncated: false });
    expect(digest.hosts.map((h) => h)).toEqual(
      ['a.dig.test', 'b.dig.test', 'c.dig.test'].map((host) =>
        expect.objectContaining({ host, domain: 'dig.test', platform: 'intigriti', program: 'Dig' }),
      ),
    );
    expect((digest.events as { type: string; host: string }[]).map((e) => [e.type, e.host])).toEqual([
      ['dns_changed', 'a.dig.test'],
    ]);
    const [delivery] = (await t.get(`/webhooks/${id}/deliveries`, owner)).body.data;
    expect(delivery).toMatchObject({ kind: 'digest', event_count: 4, status: 'delivered' });
  });

  it('lists only resolving hosts in a digest that asks for them, and asks a digest for that', async () => {
    await seedDomain(t, { domain: 'res.test', platform: 'yeswehack' });
    const { id } = await create({
      url: `${receiver.url}/resolving`,
      domains: ['res.test'],
      digest_minutes: 30,
      resolving_only: true,
      format: 'slack',
    });
    await scanThroughApi(t, crt, owner, 'res.test', ['up.res.test', 'down.res.test']);
    await t.dataSource.query(
      `INSERT INTO host_intel (host_id, dns_status, a, resolved_at)
       SELECT id, CASE WHEN host = 'up.res.test' THEN 'resolved' ELSE 'nxdomain' END,
              CASE WHEN host = 'up.res.test' THEN '{192.0.2.9}'::text[] END, now()
         FROM hosts WHERE domain_id = (SELECT id FROM domains WHERE domain = 'res.test')`,
    );
    await endWindow(id, 30);
    await settle();
    const [message] = bodies('/resolving') as unknown as { text: string }[];
    expect(message.text).toMatch(/^1 new host from \d{4}-\d\d-\d\d \d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d UTC\n```\n/);
    expect(message.text).toContain('up.res.test (yeswehack)');
    expect(message.text).not.toContain('down.res.test');

    for (const [body, message] of [
      [{ url: `${receiver.url}/x`, resolving_only: true }, /resolving only needs a digest/],
      [{ url: `${receiver.url}/x`, digest_minutes: 0 }, /digest_minutes must be at least 1/],
      [{ url: `${receiver.url}/x`, scope: 'some' }, /scope must be one of in, out, all/],
      [{ url: `${receiver.url}/x`, platforms: ['nowhere'] }, /unknown platform "nowhere"/],
      [{ url: `${receiver.url}/x`, domains: [] }, /domains must name at least one/],
    ] as const) {
      const refused = await t.post('/webhooks', body, owner);
      expectError(refused, 400, 'invalid_body');
      expect(refused.body.error.message).toMatch(message);
    }
  });
});
