import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { Receiver } from './fixtures/webhook-receiver.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { crtshWorker, scanThroughApi } from './fixtures/worker.js';
import { WebhookDeliveryService } from '../src/notify/webhook-delivery.service.js';
import { DeliveriesRepository } from '../src/notify/deliveries.repository.js';
import { WebhooksService } from '../src/notify/webhooks.service.js';

/**
 * Webhooks delivered by the worker after real scans (a loopback crt.sh) to a loopback receiver: batched per scan,
 * signed, retried, recorded, and never in a scan's way.
 */
describe('webhooks', () => {
  let t: TestApp;
  let crt: LoopbackCrtsh;
  let receiver: Receiver;
  let write: Record<string, string>;
  const secret = 'whsec-0123456789abcdef';

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    receiver = await new Receiver().start();
    t = await startTestApp({
      ...crtshWorker(crt),
      WEBHOOK_RETRY_SECONDS: 1,
      WEBHOOK_MAX_ATTEMPTS: 3,
      // Longer than the slow receiver below takes to answer.
      WEBHOOK_TIMEOUT_SECONDS: 15,
    });
    write = bearer(await t.token(['read', 'write']));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    await crt.close();
  });

  const webhooks = () => t.app.get(WebhooksService);
  const deliveries = () => t.app.get(WebhookDeliveryService);
  const scan = (domain: string, names: string[]) => scanThroughApi(t, crt, write, domain, names);
  /** Delivers what is due and waits until it is done. */
  const settle = async () => {
    deliveries().kick();
    await deliveries().settled();
  };
  const recorded = async (id: string) => (await webhooks().list()).find((w) => w.id === id)!;

  it('delivers exactly the new hosts of a scan once, signed, and nothing after a scan without new hosts', async () => {
    await seedDomain(t, { domain: 'acme.com', platform: 'hackerone' });
    const id = await webhooks().add({ url: `${receiver.url}/acme`, domains: 'acme.com', secret });
    await scan('acme.com', ['www.acme.com', 'api.acme.com', 'mail.acme.com']);
    await waitFor('the delivery', () => (receiver.at('/acme').length > 0 ? true : undefined));
    await settle();

    const [delivery] = receiver.at('/acme');
    expect(receiver.at('/acme')).toHaveLength(1);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['x-subdomain-monitor-event']).toBe('new_hosts');
    const expected = `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`;
    expect(delivery.headers['x-subdomain-monitor-signature-256']).toBe(expected);
    const body = JSON.parse(delivery.body);
    expect(body).toMatchObject({
      event: 'new_hosts',
      domain: 'acme.com',
      platform: 'hackerone',
      new_count: 3,
      truncated: false,
    });
    expect(body.delivery_id).toBe(delivery.headers['x-subdomain-monitor-delivery']);
    expect(body.hosts.map((h: { host: string }) => h.host).sort()).toEqual([
      'api.acme.com',
      'mail.acme.com',
      'www.acme.com',
    ]);
    const [scanRow] = await t.dataSource.query(`SELECT id::text FROM scans ORDER BY started_at DESC LIMIT 1`);
    expect(body.scan_id).toBe(scanRow.id);

    // Seen again, plus one new: only the new one is delivered.
    await scan('acme.com', ['www.acme.com', 'api.acme.com', 'mail.acme.com']);
    await scan('acme.com', ['www.acme.com', 'api.acme.com', 'mail.acme.com', 'dev.acme.com']);
    await waitFor('the second delivery', () => (receiver.at('/acme').length > 1 ? true : undefined));
    await settle();
    expect(receiver.at('/acme')).toHaveLength(2);
    expect(JSON.parse(receiver.at('/acme')[1].body).hosts.map((h: { host: string }) => h.host)).toEqual([
      'dev.acme.com',
    ]);
    expect(await recorded(id)).toMatchObject({
      delivered: 2,
      given_up: 0,
      failures: 0,
      last_status: 204,
      last_error: null,
    });
    await webhooks().remove(id);
  });

  it('retries a failing endpoint with back-off and records each attempt', async () => {
    await seedDomain(t, { domain: 'flaky.com', platform: 'bugcrowd' });
    const id = await webhooks().add({ url: `${receiver.url}/flaky`, domains: 'flaky.com' });
    receiver.statuses.set('/flaky', [503]);
    await scan('flaky.com', ['a.flaky.com', 'b.flaky.com']);
    await waitFor('the first attempt', () => (receiver.at('/flaky').length > 0 ? true : undefined));
    await settle();
    expect(await recorded(id)).toMatchObject({ delivered: 0, failures: 1, last_status: 503, last_error: 'HTTP 503' });

    // The retry is due after WEBHOOK_RETRY_SECONDS (1 s).
    await waitFor('the retry', () => (receiver.at('/flaky').length > 1 ? true : undefined), { ms: 15_000 });
    await settle();
    const [first, second] = receiver.at('/flaky');
    expect(receiver.at('/flaky')).toHaveLength(2);
    expect(second.body).toBe(first.body);
    expect(second.headers['x-subdomain-monitor-delivery']).toBe(first.headers['x-subdomain-monitor-delivery']);
    expect(second.headers['x-subdomain-monitor-signature-256']).toBeUndefined();
    expect(await recorded(id)).toMatchObject({ delivered: 1, failures: 0, last_status: 204 });
    const [row] = await t.dataSource.query(
      `SELECT attempts, outcome, done_at IS NOT NULL AS done FROM webhook_deliveries WHERE webhook_id = $1`,
      [id],
    );
    expect(row).toEqual({ attempts: 2, outcome: 'delivered', done: true });
    await webhooks().remove(id);
  });

  it('never holds a scan up for a dead endpoint, and gives its delivery up after the last attempt', async () => {
    await seedDomain(t, { domain: 'dead.com', platform: 'hackerone' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const id = await webhooks().add({ url: `http://127.0.0.1:${port}/gone`, domains: 'dead.com' });

    const started = Date.now();
    await scan('dead.com', ['x.dead.com']);
    await scan('dead.com', ['x.dead.com', 'y.dead.com']);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await t.get('/domains/dead.com', write)).body.data).toMatchObject({ total_subdomains: 2 });

    // Three attempts each (1 s, then 4 s apart), then given up.
    const final = await waitFor(
      'both deliveries given up',
      async () => {
        await settle();
        const w = await recorded(id);
        return w.given_up === 2 ? w : undefined;
      },
      { ms: 30_000 },
    );
    expect(final).toMatchObject({
      delivered: 0,
      given_up: 2,
      failures: 6,
      last_status: null,
      last_error: 'ECONNREFUSED',
    });
    await webhooks().remove(id);
  });

  it('delivers to a fast endpoint at once while a slow one answers, and one at a time, in order, to the slow one', async () => {
    const slowMs = 6000;
    await seedDomain(t, { domain: 'slow.com', platform: 'hackerone' });
    await seedDomain(t, { domain: 'fast.com', platform: 'hackerone' });
    receiver.delaysMs.set('/slow', slowMs);
    const ids = [
      await webhooks().add({ url: `${receiver.url}/slow`, domains: 'slow.com' }),
      await webhooks().add({ url: `${receiver.url}/fast`, domains: 'fast.com' }),
    ];
    const state = () =>
      JSON.stringify(
        receiver.received.map((r) => ({ path: r.path, arrivedAt: r.arrivedAt, answeredAt: r.answeredAt })),
      );

    await scan('slow.com', ['s1.slow.com']);
    await waitFor('the slow endpoint to be called', () => (receiver.at('/slow').length > 0 ? true : undefined), {
      ms: 10_000,
      context: state,
    });
    // While the slow endpoint takes its time: a second delivery for it, and one for the fast endpoint.
    await scan('slow.com', ['s1.slow.com', 's2.slow.com']);
    const queued = Date.now();
    await scan('fast.com', ['f1.fast.com']);
    await waitFor('the fast delivery', () => (receiver.at('/fast').length > 0 ? true : undefined), {
      ms: 3000,
      context: state,
    });
    const [fast] = receiver.at('/fast');
    expect(fast.arrivedAt - queued).toBeLessThan(slowMs / 2);
    // The slow endpoint still had its first delivery, unanswered, and not yet the second.
    expect(receiver.at('/slow').map((r) => r.answeredAt)).toEqual([undefined]);

    await waitFor('the second slow delivery', () => (receiver.at('/slow').length > 1 ? true : undefined), {
      ms: slowMs * 3,
      context: state,
    });
    const [first, second] = receiver.at('/slow');
    expect(second.arrivedAt).toBeGreaterThanOrEqual(first.answeredAt!);
    expect(JSON.parse(first.body).hosts.map((h: { host: string }) => h.host)).toEqual(['s1.slow.com']);
    expect(JSON.parse(second.body).hosts.map((h: { host: string }) => h.host)).toEqual(['s2.slow.com']);
    await waitFor(
      'both slow deliveries recorded',
      async () => ((await recorded(ids[0])).delivered === 2 ? true : undefined),
      {
        ms: slowMs * 2,
        context: state,
      },
    );
    expect(await recorded(ids[1])).toMatchObject({ delivered: 1, failures: 0 });
    for (const id of ids) await webhooks().remove(id);
  });

  it('sends only the scans of its platform or domain, as json, slack or discord', async () => {
    await seedDomain(t, { domain: 'zeta.com', platform: 'intigriti' });
    await seedDomain(t, { domain: 'eta.com', platform: 'yeswehack' });
    const ids = [
      await webhooks().add({ url: `${receiver.url}/intigriti`, platforms: 'intigriti' }),
      await webhooks().add({ url: `${receiver.url}/eta-slack`, domains: 'eta.com', format: 'slack' }),
      await webhooks().add({ url: `${receiver.url}/eta-discord`, domains: 'eta.com', format: 'discord' }),
    ];
    await scan('zeta.com', ['a.zeta.com']);
    const many = Array.from({ length: 120 }, (_, i) => `host-${String(i).padStart(3, '0')}-with-a-long-label.eta.com`);
    await scan('eta.com', many);
    await waitFor('three deliveries', () =>
      receiver.at('/intigriti').length + receiver.at('/eta-slack').length + receiver.at('/eta-discord').length === 3
        ? true
        : undefined,
    );
    await settle();

    expect(JSON.parse(receiver.at('/intigriti')[0].body)).toMatchObject({ domain: 'zeta.com', new_count: 1 });
    expect(receiver.at('/intigriti')).toHaveLength(1);
    const slack = JSON.parse(receiver.at('/eta-slack')[0].body);
    expect(Object.keys(slack)).toEqual(['text', 'unfurl_links', 'unfurl_media']);
    expect(slack.text).toMatch(/^120 new hosts on eta\.com \(yeswehack\)\n```\n/);
    expect(slack.text).toMatch(/\n… and 95 more$/);
    const discord = JSON.parse(receiver.at('/eta-discord')[0].body);
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.content.length).toBeLessThanOrEqual(2000);
    expect(discord.content).toMatch(/^120 new hosts on eta\.com \(yeswehack\)\n```\n[^`]+```\n… and \d+ more$/);
    for (const id of ids) await webhooks().remove(id);
  });

  it('lists the newest deliveries of several webhooks at once, each its own', async () => {
    const many = await webhooks().add({ url: `${receiver.url}/many` });
    const one = await webhooks().add({ url: `${receiver.url}/one` });
    const none = await webhooks().add({ url: `${receiver.url}/none` });
    await t.dataSource.query(
      `INSERT INTO webhook_deliveries (webhook_id, kind, created_at, attempts, done_at, outcome, last_status)
       SELECT $1::uuid, 'test', now() - make_interval(mins => n), 1, now(), 'delivered', 200 + n
         FROM generate_series(1, 12) n
       UNION ALL SELECT $2::uuid, 'test', now(), 1, now(), 'delivered', 204`,
      [many, one],
    );
    const recent = await t.app.get(WebhooksService).recentDeliveries([many, one, none], 10);
    // The ten newest of the first, newest first; the one of the second; none of the third.
    expect(recent.get(many)?.map((d) => d.http_status)).toEqual([201, 202, 203, 204, 205, 206, 207, 208, 209, 210]);
    expect(recent.get(one)?.map((d) => d.http_status)).toEqual([204]);
    expect(recent.get(none)).toEqual([]);
    // The same rows as the one-webhook list gives.
    expect(recent.get(many)).toEqual((await webhooks().deliveries(many)).slice(0, 10));
    for (const id of [many, one, none]) await webhooks().remove(id);
  });

  // Last: it stops the app's deliveries, to claim by hand as two workers would.
  it('records nothing for a worker whose lease ran out, once another has taken the delivery up', async () => {
    await deliveries().beforeApplicationShutdown();
    await seedDomain(t, { domain: 'lease.com', platform: 'hackerone' });
    await scan('lease.com', ['l.lease.com']);
    const id = await webhooks().add({ url: `${receiver.url}/lease`, domains: 'lease.com' });
    await t.dataSource.query(
      `INSERT INTO webhook_deliveries (webhook_id, scan_id)
       SELECT $1, s.id FROM scans s JOIN domains d ON d.id = s.domain_id WHERE d.domain = 'lease.com'`,
      [id],
    );
    const repository = t.app.get(DeliveriesRepository);
    const [stale] = await repository.claimDue(1, 0, 0); // a lease that has already run out
    const [taken] = await repository.claimDue(1, 60, 0);
    expect(taken).toMatchObject({ id: stale.id, attempts: 2 });

    await repository.record(stale, { ok: false, status: 500, error: 'HTTP 500' }, 1);
    expect(await recorded(id)).toMatchObject({ delivered: 0, failures: 0, last_status: null });
    await repository.record(taken, { ok: true, status: 200, error: null }, null);
    expect(await recorded(id)).toMatchObject({ delivered: 1, failures: 0, last_status: 200 });
    const rows = await t.dataSource.query(`SELECT attempts, outcome FROM webhook_deliveries WHERE webhook_id = $1`, [
      id,
    ]);
    expect(rows).toEqual([{ attempts: 2, outcome: 'delivered' }]);
  });
});
