import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium, withScreenshot } from './fixtures/browser.js';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { runCli } from './fixtures/cli.js';
import { Receiver } from './fixtures/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The account page in a real browser (see fixtures/browser.ts): owners sign in, create a key that is shown
 * once, use it against the API, revoke it; a second owner sees and revokes nothing of the first's. Owners add,
 * test, inspect and remove their webhooks (to a loopback receiver).
 * ACCOUNT_SCREENSHOT=path writes the docs' picture of the page (docs/images/account.png).
 */
describeInBrowser('the account page in Chromium', () => {
  let db: ProcessDatabase;
  let server: BuiltServer;
  let browser: Browser;
  let page: Page | undefined;
  let receiver: Receiver;
  const users: Record<string, string> = {};

  beforeAll(async () => {
    db = await createProcessDatabase('sm-account-');
    for (const [email, name] of [
      ['alice@example.com', 'Alice'],
      ['bob@example.com', 'Bob'],
    ]) {
      const r = await runCli(
        ['users', 'create', '--email', email, '--name', name],
        { ...db.env, LOG_LEVEL: 'error' },
        `${name} password 1\n`,
      );
      if (r.code !== 0) throw new Error(r.stderr);
      users[email] = r.stdout.trim();
    }
    server = await startBuiltServer({ ...db.env, WORKER: 'off' });
    browser = await launchChromium();
    receiver = await new Receiver().start();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await browser?.close();
    await server?.stop();
    await db?.close();
  });

  const me = async (key: string) => {
    const res = await fetch(`${server.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as Json };
  };

  /** A fresh browser (its own cookies) signed in as `email`, on the account page. */
  const signIn = async (email: string, name: string): Promise<Page> => {
    page = await (await browser.newContext()).newPage();
    await page.goto(`${server.baseUrl}/account`);
    expect(new URL(page.url()).pathname).toBe('/account/sign-in');
    await page.fill('#email', email);
    await page.fill('#password', `${name} password 1`);
    await Promise.all([page.waitForURL(`${server.baseUrl}/account`), page.click('button[type=submit]')]);
    return page;
  };

  const createKey = async (p: Page, name: string, scope: 'read' | 'write'): Promise<string> => {
    await p.fill('#name', name);
    await p.check(`input[name=scope][value=${scope}]`);
    await Promise.all([p.waitForLoadState(), p.click('text=Create key')]);
    return p.inputValue('#new-key');
  };

  /** Posts a form the page never offered, with the browser's own cookies (and, if asked, the page's CSRF token). */
  const forge = async (p: Page, action: string, withCsrf: boolean) => {
    await p.goto(`${server.baseUrl}/account`);
    const csrf = await p.inputValue('input[name=_csrf]');
    const response = await p.context().request.post(`${server.baseUrl}${action}`, {
      form: withCsrf ? { _csrf: csrf } : {},
      maxRedirects: 0,
    });
    return { status: response.status(), text: await response.text() };
  };

  it(
    'signs in, creates a read key shown once, and a revoke in the page refuses the next API request',
    withScreenshot(
      () => page,
      'account-tokens',
      async () => {
        const alice = await signIn('alice@example.com', 'Alice');
        const key = await createKey(alice, 'laptop', 'read');
        expect(key).toMatch(/^sm_live_[A-Za-z0-9]{40}$/);
        expect(await alice.locator('[role=alert]').first().textContent()).toMatch(/only time it is shown/);
        expect(await alice.locator('button[data-copy]').isVisible()).toBe(true); // the script ran

        const used = await me(key);
        expect(used).toEqual({
          status: 200,
          body: { data: { user_id: users['alice@example.com'], key: { name: 'laptop', scopes: ['read'] } } },
        });

        // Listed, with last use, and never shown again.
        await alice.goto(`${server.baseUrl}/account`);
        const row = alice.locator('tr[data-key=laptop]');
        expect(await row.locator('td').nth(1).textContent()).toContain('read');
        expect(await row.locator('td').nth(4).textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
        expect(await alice.content()).not.toContain(key.slice(8));

        if (process.env.ACCOUNT_SCREENSHOT) {
          await createKey(alice, 'recon-box', 'write');
          await alice.goto(`${server.baseUrl}/account`);
          await alice.screenshot({ path: process.env.ACCOUNT_SCREENSHOT, fullPage: true });
        }

        await Promise.all([
          alice.waitForURL(`${server.baseUrl}/account`),
          row.locator('button', { hasText: 'Revoke' }).click(),
        ]);
        expect(await alice.locator('tr[data-key=laptop]').textContent()).toContain('Revoked');
        expect(await me(key)).toMatchObject({ status: 401, body: { error: { code: 'revoked_token' } } });
      },
    ),
    60_000,
  );

  it(
    "keeps each owner to their own keys: another user's list is empty and a forged revoke is refused",
    withScreenshot(
      () => page,
      'account-isolation',
      async () => {
        const alice = await signIn('alice@example.com', 'Alice');
        const key = await createKey(alice, 'desktop', 'write');
        await alice.goto(`${server.baseUrl}/account`);
        const revokeAction = await alice.locator('tr[data-key=desktop] form').getAttribute('action');
        expect(revokeAction).toMatch(/^\/account\/tokens\/[0-9a-f-]{36}\/revoke$/);

        const bob = await signIn('bob@example.com', 'Bob');
        const list = (await bob.locator('main').textContent()) ?? '';
        expect(list).toContain('You have no keys yet');
        expect(list).not.toMatch(/desktop|laptop/);

        // Bob posts the revoke form for Alice's key, with his own valid CSRF token: not his key, not found.
        const forged = await forge(bob, revokeAction as string, true);
        expect(forged.status).toBe(404);
        expect(forged.text).toContain('You have no active key with this id');
        // And without the token, as a page on another site would post it: refused before anything is looked up.
        expect((await forge(bob, revokeAction as string, false)).status).toBe(403);

        expect((await me(key)).status).toBe(200);
        await alice.goto(`${server.baseUrl}/account`);
        expect(await alice.locator('tr[data-key=desktop]').textContent()).not.toContain('Revoked');
      },
    ),
    60_000,
  );

  it(
    'adds a webhook shown once, sends it a signed test, lists its deliveries and sends one again, and removes it',
    withScreenshot(
      () => page,
      'account-webhooks',
      async () => {
        const alice = await signIn('alice@example.com', 'Alice');
        expect(await alice.locator('#webhooks').textContent()).toContain('You have no webhooks yet');
        const url = `${receiver.url}/alice-hook/T0123/token-in-path`;

        // A URL of another scheme is refused with the reason, nothing added.
        await alice.fill('#webhook-url', 'ftp://files.example/');
        await Promise.all([alice.waitForLoadState(), alice.click('text=Add webhook')]);
        expect(await alice.locator('#webhooks [role=alert]').textContent()).toContain('must be http or https');

        await alice.fill('#webhook-url', url);
        await alice.selectOption('#webhook-format', 'json');
        await alice.check('input[name=types][value=dns_changed]');
        await Promise.all([alice.waitForLoadState(), alice.click('text=Add webhook')]);
        expect(await alice.inputValue('#new-webhook-url')).toBe(url);
        const secret = await alice.inputValue('#new-webhook-secret');
        expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);

        // Listed with its URL masked; neither the token in its path nor its secret is shown again.
        await alice.goto(`${server.baseUrl}/account`);
        const row = alice.locator('tr[data-webhook]');
        expect(await row.locator('td').first().textContent()).toBe(`${receiver.url}/alice-hook/…`);
        expect(await row.locator('td').nth(3).textContent()).toContain('host_new, dns_changed');
        const html = await alice.content();
        expect(html).not.toContain('token-in-path');
        expect(html).not.toContain(secret);

        await Promise.all([alice.waitForLoadState(), row.locator('button', { hasText: 'Send test' }).click()]);
        expect(await alice.locator('[data-tested]').getAttribute('data-tested')).toBe('delivered');
        expect(await alice.locator('[data-tested]').textContent()).toMatch(/delivered \(HTTP 204, \d+ ms\)/);
        const [sent] = receiver.at('/alice-hook/T0123/token-in-path');
        expect(JSON.parse(sent.body)).toMatchObject({ event: 'test' });
        expect(sent.headers['x-subdomain-monitor-signature-256']).toBe(
          `sha256=${createHmac('sha256', secret).update(sent.body).digest('hex')}`,
        );

        // Its deliveries, and one sent again.
        await alice.click('tr.deliveries summary');
        const delivery = alice.locator('tr[data-delivery]');
        expect(await delivery.locator('td.outcome').textContent()).toMatch(/^delivered \(HTTP 204, \d+ ms\)$/);
        await Promise.all([
          alice.waitForURL(`${server.baseUrl}/account#webhooks`),
          delivery.locator('button', { hasText: 'Send again' }).click(),
        ]);
        await alice.click('tr.deliveries summary');
        // No worker runs in this server: the delivery waits, pending.
        expect(await alice.locator('tr[data-delivery] td.outcome').textContent()).toMatch(/^pending/);

        // Another owner sees none of it, and cannot remove it.
        const removeAction = await row.locator('form', { hasText: 'Remove' }).getAttribute('action');
        const bob = await signIn('bob@example.com', 'Bob');
        expect(await bob.locator('#webhooks').textContent()).toContain('You have no webhooks yet');
        const forged = await forge(bob, removeAction as string, true);
        expect([forged.status, forged.text.includes('You have no webhook with this id')]).toEqual([404, true]);

        const again = await signIn('alice@example.com', 'Alice');
        await Promise.all([
          again.waitForURL(`${server.baseUrl}/account#webhooks`),
          again.locator('tr[data-webhook] button', { hasText: 'Remove' }).click(),
        ]);
        expect(await again.locator('#webhooks').textContent()).toContain('You have no webhooks yet');
      },
    ),
    60_000,
  );
});
