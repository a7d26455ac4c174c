import { createHmac } from 'node:crypto';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { WebhookDeliveryService } from '../src/notify/webhook-delivery.service.js';
import { WebhooksService } from '../src/notify/webhooks.service.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { Receiver } from './fixtures/webhook-receiver.js';
import { crtshWorker, scanThroughApi } from './fixtures/worker.js';

type Webhook = { id: string; url: string; state: string; signed: boolean; secret?: string | null };
type Delivery = {
  id: string;
  kind: string;
  status: string;
  event_count: number;
  attempts: number;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
};

/**
 * Webhooks their owners manage through the API, delivered by the worker after real scans (a loopback crt.sh) to a
 * loopback receiver: ownership, test messages, the deliveries and their retry, pausing an endpoint that keeps
 * failing, and never following a redirect.
 */
describe('webhooks of their owners', () => {
  let t: TestApp;
  let crt: LoopbackCrtsh;
  let receiver: Receiver;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    receiver = await new Receiver().start();
    t = await startTestApp({ ...crtshWorker(crt), WEBHOOK_RETRY_SECONDS: 1, WEBHOOK_MAX_ATTEMPTS: 2 });
    alice = bearer(await t.token(['read', 'write']));
    bob = bearer((await t.app.get(ApiKeysService).create('bob-key', 'user-2', ['read', 'write'])).token);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    await crt.close();
  });

  const create = (body: object, headers = alice) => t.post('/webhooks', body, headers);
  const deliveriesOf = async (id: string, headers = alice) => {
    const res = await t.get(`/webhooks/${id}/deliveries`, headers);
    expect(res.status).toBe(200);
    return res.body.data as Delivery[];
  };
  const settle = async () => {
    const worker = t.app.get(WebhookDeliveryService);
    worker.kick();
    await worker.settled();
  };

  it("shows each user their own webhooks only, the whole URL and the secret once, and others' as 404", async () => {
    const made = await create({ url: `${receiver.url}/alice/T0123/secret-token`, types: ['host_new', 'dns_changed'] });
    expect(made.status).toBe(201);
    const webhook = made.body.data as Webhook;
    expect(webhook).toMatchObject({
      url: `${receiver.url}/alice/T0123/secret-token`,
      format: 'json',
      types: ['host_new', 'dns_changed'],
      signed: true,
      state: 'active',
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
    });

    const listed = await t.get('/webhooks', alice);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: webhook.id, url: `${receiver.url}/alice/…` })]);
    expect(listed.text).not.toContain('secret-token');
    expect(listed.text).not.toContain(webhook.secret);
    expect((await t.get(`/webhooks/${webhook.id}`, alice)).body.data.url).toBe(`${receiver.url}/alice/…`);

    // The operator's webhook (the CLI's) belongs to no user.
    await t.app.get(WebhooksService).add({ url: `${receiver.url}/operator` });
    expect((await t.get('/webhooks', bob)).body.data).toEqual([]);
    for (const [method, path] of [
      ['GET', `/webhooks/${webhook.id}`],
      ['GET', `/webhooks/${webhook.id}/deliveries`],
      ['POST', `/webhooks/${webhook.id}/test`],
      ['POST', `/webhooks/${webhook.id}/deliveries/${webhook.id}/retry`],
      ['DELETE', `/webhooks/${webhook.id}`],
    ] as const) {
      expectError(await t.request(method, path, { headers: bob }), 404, 'not_found');
    }
    expect(receiver.at('/alice/T0123/secret-token')).toHaveLength(0); // bob's test sent nothing

    const readOnly = bearer(await t.token(['read']));
    expectError(await t.get('/webhooks', readOnly), 403, 'insufficient_scope');
    expectError(await t.get('/webhooks/not-a-uuid', alice), 400, 'invalid_id');
    for (const [body, message] of [
      [{}, /url is required/],
      [{ url: 'ftp://x.example/' }, /must be http or https/],
      [{ url: `${receiver.url}/x`, format: 'xml' }, /format must be one of/],
      [{ url: `${receiver.url}/x`, types: ['everything'] }, /types must be a list of host_new/],
      [{ url: `${receiver.url}/x`, domains: ['untracked.example'] }, /is not a tracked domain/],
      [{ url: `${receiver.url}/x`, secret: 'short' }, /at least 16 characters/],
    ] as const) {
      const refused = await create(body);
      expectError(refused, 400, 'invalid_body');
      expect(refused.body.error.message).toMatch(message);
    }

    const removed = await t.request('DELETE', `/webhooks/${webhook.id}`, { headers: alice });
    expect([removed.status, removed.body.data.id]).toEqual([200, webhook.id]);
    expectError(await t.get(`/webhooks/${webhook.id}`, alice), 404, 'not_found');
  });

  it('sends a signed test message at once, and keeps it with the deliveries', async () => {
    const secret = 'owner-secret-0123456789';
    const { id } = (await create({ url: `${receiver.url}/tested`, secret })).body.data as Webhook;
    const res = await t.post(`/webhooks/${id}/test`, undefined, alice);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'test', status: 'delivered', http_status: 204, attempts: 1 });
    expect(res.body.data.duration_ms).toEqual(expect.any(Number));

    const [sent] = receiver.at('/tested');
    expect(JSON.parse(sent.body)).toMatchObject({ event: 'test', delivery_id: res.body.data.id });
    expect(sent.headers['x-subdomain-monitor-signature-256']).toBe(
      `sha256=${createHmac('sha256', secret).update(sent.body).digest('hex')}`,
    );
    expect(await deliveriesOf(id)).toEqual([res.body.data]);

    receiver.statuses.set('/tested', [503]);
    const failed = await t.post(`/webhooks/${id}/test`, undefined, alice);
    expect(failed.body.data).toMatchObject({ status: 'given_up', http_status: 503, error: 'HTTP 503' });
  });

  it('lists the deliveries of real scans, retries one on request, and pauses an endpoint failing for 24 hours', async () => {
    await seedDomain(t, { domain: 'owned.test', platform: 'hackerone' });
    const { id } = (await create({ url: `${receiver.url}/owned`, domains: ['owned.test'] })).body.data as Webhook;
    await scanThroughApi(t, crt, alice, 'owned.test', ['a.owned.test', 'b.owned.test']);
    await waitFor('the delivery', () => (receiver.at('/owned').length > 0 ? true : undefined));
    await settle();
    const [first] = await deliveriesOf(id);
    expect(first).toMatchObject({ kind: 'new_hosts', event_count: 2, status: 'delivered', http_status: 204 });

    // Sent again on request, as it was.
    const retried = await t.post(`/webhooks/${id}/deliveries/${first.id}/retry`, undefined, alice);
    expect([retried.status, retried.body.data.status]).toEqual([202, 'pending']);
    await waitFor('the second send', () => (receiver.at('/owned').length === 2 ? true : undefined));
    expect(receiver.at('/owned').map((r) => JSON.parse(r.body).delivery_id)).toEqual([first.id, first.id]);
    expectError(
      await t.post(`/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/retry`, undefined, alice),
      404,
      'not_found',
    );

    // An endpoint that has failed for a day: the next failure pauses it, and nothing is attempted while paused.
    receiver.statuses.set('/owned', [500, 500, 500, 500]);
    await t.dataSource.query(`UPDATE webhooks SET failing_since = now() - interval '25 hours' WHERE id = $1`, [id]);
    await scanThroughApi(t, crt, alice, 'owned.test', ['a.owned.test', 'c.owned.test']);
    await waitFor('the failed attempt', () => (receiver.at('/owned').length === 3 ? true : undefined));
    await settle();
    const paused = (await t.get(`/webhooks/${id}`, alice)).body.data;
    expect(paused).toMatchObject({ state: 'paused', last_status: 500, last_error: 'HTTP 500' });
    const [pending] = await deliveriesOf(id);
    expect(pending).toMatchObject({ status: 'pending', event_count: 1, attempts: 1, error: 'HTTP 500' });
    await t.dataSource.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, [pending.id]);
    await settle();
    expect(receiver.at('/owned')).toHaveLength(3);

    // A retry resumes it.
    receiver.statuses.set('/owned', []);
    await t.post(`/webhooks/${id}/deliveries/${pending.id}/retry`, undefined, alice);
    await waitFor('the resumed delivery', () => (receiver.at('/owned').length === 4 ? true : undefined));
    await settle();
    expect((await t.get(`/webhooks/${id}`, alice)).body.data).toMatchObject({ state: 'active', paused_at: null });
    expect((await deliveriesOf(id))[0]).toMatchObject({ id: pending.id, status: 'delivered', attempts: 1 });
  });

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    const { id } = (await create({ url: `${receiver.url}/moved` })).body.data as Webhook;
    receiver.statuses.set('/moved', [302]);
    const res = await t.post(`/webhooks/${id}/test`, undefined, alice);
    expect(res.body.data).toMatchObject({ status: 'given_up', http_status: 302, error: 'HTTP 302' });
    expect(receiver.at('/redirected')).toHaveLength(0);
  });
});

/** With WEBHOOK_ALLOW_PRIVATE off, as the service runs by default. */
describe('webhooks to private addresses', () => {
  let t: TestApp;
  let receiver: Receiver;
  let alice: Record<string, string>;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'off' });
    alice = bearer(await t.token(['read', 'write']));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it.each([
    [`http://127.0.0.1:1/hook`, /127\.0\.0\.1 is a loopback address/],
    [`http://localhost:1/hook`, /localhost is at (127\.0\.0\.1|::1), a loopback address/],
    ['http://10.20.30.40/hook', /10\.20\.30\.40 is a private address/],
    ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a link-local address/],
    ['http://[::1]/hook', /::1 is a loopback address/],
    ['http://[fd00::1]/hook', /fd00::1 is a unique local \(private\) address/],
    ['http://0.0.0.0/hook', /0\.0\.0\.0 is an unspecified address/],
    ['http://100.64.0.1/hook', /100\.64\.0\.1 is a carrier-grade NAT address/],
    ['http://[::ffff:10.0.0.1]/hook', /is a private address/],
  ])('refuses %s when it is added', async (url, message) => {
    const refused = await t.post('/webhooks', { url }, alice);
    expectError(refused, 400, 'invalid_body');
    expect(refused.body.error.message).toMatch(message);
    expect(refused.body.error.message).toMatch(/WEBHOOK_ALLOW_PRIVATE=on/);
  });

  it('refuses an email webhook while the service has no SMTP server', async () => {
    const refused = await t.post('/webhooks', { url: 'mailto:a@example.com', format: 'email' }, alice);
    expectError(refused, 400, 'invalid_body');
    expect(refused.body.error.message).toBe('email webhooks need SMTP_URL and SMTP_FROM set on the service');
  });

  it('refuses a private address again at delivery, when the name resolves there by then', async () => {
    // Added when its name resolved elsewhere: written as the service would have written it.
    const [{ id }] = await t.dataSource.query(
      `INSERT INTO webhooks (url, owner) VALUES ($1, 'user-1') RETURNING id::text`,
      [`${receiver.url.replace('127.0.0.1', 'localhost')}/rebound`],
    );
    const res = await t.post(`/webhooks/${id}/test`, undefined, alice);
    expect(res.body.data).toMatchObject({ status: 'given_up', http_status: null, error: 'private address refused' });
    expect(receiver.received).toHaveLength(0);
  });
});
