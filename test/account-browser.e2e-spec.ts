import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium, withScreenshot } from './fixtures/browser.js';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { runCli } from './fixtures/cli.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The account page in a real browser (see fixtures/browser.ts): owners sign in, create a key that is shown
 * once, use it against the API, revoke it; a second owner sees and revokes nothing of the first's.
 * ACCOUNT_SCREENSHOT=path writes the README's picture of the page.
 */
describeInBrowser('the account page in Chromium', () => {
  let db: ProcessDatabase;
  let server: BuiltServer;
  let browser: Browser;
  let page: Page | undefined;
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
  }, 60_000);
  afterAll(async () => {
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
});
