import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium, withScreenshot as shoot } from './fixtures/browser.js';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { runCli } from './fixtures/cli.js';

/** Swagger UI at /docs, in a real browser (see fixtures/browser.ts). */
describeInBrowser('Swagger UI in Chromium', () => {
  let db: ProcessDatabase;
  let server: BuiltServer;
  let browser: Browser;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    db = await createProcessDatabase('sm-docs-');
    const created = await runCli(['tokens', 'create', '--name', 'docs-browser'], { ...db.env, LOG_LEVEL: 'error' });
    token = created.stdout.trim().split('\n').at(-1) as string;
    server = await startBuiltServer({ ...db.env, WORKER: 'off', DOCS: 'on' });
    browser = await launchChromium();
    page = await browser.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await db?.close();
  });
  const withScreenshot = (name: string, test: () => Promise<void>) => shoot(() => page, name, test);

  it(
    'loads /docs and lists every endpoint of the API index, and the webhook apart from them',
    withScreenshot('docs-endpoints', async () => {
      await page.goto(`${server.baseUrl}/docs`);
      await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => {
          const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
          const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
          return `${method} ${path}`;
        }),
      );
      const index = (await (await fetch(`${server.baseUrl}/api/v1/`)).json()) as { data: { endpoints: string[] } };
      // Swagger UI shows the document's webhooks as operations named after them, not paths.
      expect(shown.filter((s) => s.includes(' /')).sort()).toEqual([...index.data.endpoints].sort());
      expect(shown.filter((s) => !s.includes(' /'))).toEqual(['POST newHosts', 'POST hostEvents', 'POST digest']);
    }),
  );

  it(
    'accepts a key in Authorize, and "Try it out" on /me answers 200',
    withScreenshot('docs-try-me', async () => {
      await page.goto(`${server.baseUrl}/docs`);
      await page.waitForSelector('.opblock-summary-path');
      await page.click('.btn.authorize');
      const bearer = page.locator('.auth-container').first();
      await bearer.locator('input').first().fill(token);
      await bearer.locator('button', { hasText: 'Authorize' }).click();
      await bearer.locator('button', { hasText: 'Logout' }).waitFor();
      await bearer.locator('button', { hasText: 'Close' }).click();

      const me = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/me"]') });
      await me.locator('.opblock-summary').click();
      await me.locator('.try-out__btn').click();
      await me.locator('.execute').click();
      const status = me.locator('.live-responses-table tr.response .response-col_status').first();
      await status.waitFor({ timeout: 15_000 });
      expect((await status.textContent())?.trim()).toBe('200');
      expect(await me.locator('.live-responses-table .microlight').first().textContent()).toContain('docs-browser');
    }),
  );
});
