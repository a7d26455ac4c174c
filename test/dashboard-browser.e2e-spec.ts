import { readFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeInBrowser, launchChromium, withScreenshot } from './fixtures/browser.js';
import {
  type BuiltServer,
  type ProcessDatabase,
  createProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { cliOn, runCli } from './fixtures/cli.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { waitFor } from './fixtures/wait.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every page of the dashboard, and the account page in its layout. */
const PAGES = [
  '/app',
  '/app/programs',
  '/app/domains/acme.test',
  '/app/search?q=acme',
  '/app/hosts/www.acme.test',
  '/account',
];

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The dashboard (/app) in a real browser, on a built server whose worker scans a loopback crt.sh: owners sign in
 * with the account page's session; the overview's live list shows a host a scan records without a reload; a
 * domain's filters live in the URL; search answers as one types; the queue button is for write keys only; an
 * owner without a key sees no data; axe-core finds no serious or critical violation on any page, light or dark.
 */
describeInBrowser('the dashboard in Chromium', () => {
  let db: ProcessDatabase;
  let server: BuiltServer;
  let browser: Browser;
  let page: Page | undefined;
  const crt = new LoopbackCrtsh();
  const keys: Record<string, string> = {};
  const cspErrors: string[] = [];

  const api = async (path: string, key = keys.alice, init: RequestInit = {}) => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    db = await createProcessDatabase('sm-dashboard-');
    await crt.start();
    crt.names.set('acme.test', ['www.acme.test', 'api.acme.test', 'dev.acme.test', 'api-staging.acme.test']);
    // The server first: the CLI then attaches to its embedded database, which costs a command half of opening it.
    server = await startBuiltServer({
      ...db.env,
      CRTSH_URL: crt.url,
      SCAN_SOURCES: 'crtsh',
      WORKER_CRON: '* * * * * *',
    });
    const cli = cliOn(() => db.env);
    for (const [email, name] of [
      ['alice@example.com', 'Alice'],
      ['carol@example.com', 'Carol'],
      ['bob@example.com', 'Bob'],
    ]) {
      const r = await runCli(
        ['users', 'create', '--email', email, '--name', name],
        { ...db.env, LOG_LEVEL: 'error' },
        `${name} password 1\n`,
      );
      if (r.code !== 0) throw new Error(r.stderr);
    }
    keys.alice = await cli(
      'tokens',
      'create',
      '--name',
      'recon',
      '--user',
      'alice@example.com',
      '--scopes',
      'read,write',
    );
    keys.carol = await cli('tokens', 'create', '--name', 'laptop', '--user', 'carol@example.com');
    await cli('domains', 'add', 'acme.test', '--platform', 'hackerone', '--program', 'Acme');
    await cli('domains', 'add', 'live.test', '--platform', 'bugcrowd', '--program', 'Live');
    // The worker's first sweep scans both domains (they are due as soon as they are added).
    await waitFor('the first scan of acme.test', async () => {
      const { body } = await api('/domains/acme.test');
      return body.data?.stats?.total === 4 ? true : undefined;
    });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await crt.close();
    await db?.close();
  });
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    // Each test's browsers go with it: an overview left open holds one of its owner's streams.
    for (const context of contexts.splice(0)) await context.close();
    expect(cspErrors).toEqual([]); // no page asked for anything its CSP refuses
  });

  /** A fresh browser (its own cookies), signed in as `name` through /app, which sends it to the sign-in form. */
  const signIn = async (name: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> => {
    const context = await browser.newContext(options);
    contexts.push(context);
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/.test(message.text())) cspErrors.push(message.text());
    });
    await page.goto(`${server.baseUrl}/app/programs?platform=hackerone`);
    expect(new URL(page.url()).pathname).toBe('/account/sign-in');
    await page.fill('#email', `${name.toLowerCase()}@example.com`);
    await page.fill('#password', `${name} password 1`);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}/app/programs?platform=hackerone`),
      page.click('button[type=submit]'),
    ]);
    return page;
  };

  it(
    'signs in from /app and sees each platform, the worker and the newest hosts',
    withScreenshot(
      () => page,
      'dashboard-overview',
      async () => {
        const alice = await signIn('Alice');
        // The programs page it came back to, filtered as the link asked.
        expect(await alice.locator('table.programs tbody tr').allTextContents()).toEqual([
          expect.stringMatching(/acme\.test\s*hackerone\s*Acme\s*4\s*4/),
        ]);
        await alice.click('nav[aria-label=Main] >> text=Overview');
        const card = alice.locator('section[data-platform=hackerone]');
        expect(await card.locator('dd').allTextContents()).toEqual(['1', '4', '4']);
        expect(await card.locator('figcaption').textContent()).toContain('4 new hosts in 30 days');
        await card.locator('canvas').waitFor(); // uPlot drew the sparkline
        expect(await alice.locator('#live ol.live li a').allTextContents()).toEqual(
          expect.arrayContaining(['www.acme.test', 'api.acme.test', 'dev.acme.test', 'api-staging.acme.test']),
        );
        expect(await alice.locator('[data-running]').textContent()).toMatch(/^\d+$/);
      },
    ),
  );

  it(
    'shows a host that a scan records in the live list, without a reload',
    withScreenshot(
      () => page,
      'dashboard-live',
      async () => {
        const alice = await signIn('Alice');
        await alice.goto(`${server.baseUrl}/app`);
        await alice.waitForFunction(
          () => (globalThis as Json).document.querySelector('[data-live-status]')?.textContent === 'live',
        );
        await alice.evaluate(() => ((globalThis as Json).sameDocument = true));

        const newToday = alice.locator('section[data-platform=bugcrowd] [data-new-24h]');
        const before = Number(await newToday.textContent());
        crt.names.set('live.test', ['fresh.live.test']);
        expect((await api('/scans', keys.alice, { method: 'POST', body: '{"domain":"live.test"}' })).status).toBe(202);

        const item = alice.locator('#live ol.live li', { hasText: 'fresh.live.test' });
        await item.waitFor({ timeout: 30_000 });
        expect(await item.textContent()).toContain('live.test');
        expect(await item.locator('a').getAttribute('href')).toBe('/app/hosts/fresh.live.test');
        expect(Number(await newToday.textContent())).toBe(before + 1); // its platform's card counts it
        expect(await alice.evaluate(() => (globalThis as Json).sameDocument as boolean)).toBe(true);
      },
    ),
  );

  it(
    "filters a domain's hosts, and the URL carries the filter",
    withScreenshot(
      () => page,
      'dashboard-domain',
      async () => {
        const alice = await signIn('Alice');
        await alice.goto(`${server.baseUrl}/app/domains/acme.test`);
        const hosts = () => alice.locator('table.hosts tbody tr td:first-child a').allTextContents();
        expect((await hosts()).sort()).toEqual([
          'api-staging.acme.test',
          'api.acme.test',
          'dev.acme.test',
          'www.acme.test',
        ]);
        await alice.locator('.chart.bars canvas').waitFor();

        await Promise.all([alice.waitForURL(/filter=active/), alice.click('nav.tabs >> text=Active')]);
        await alice.fill('#host-search', 'api');
        await Promise.all([alice.waitForURL(/search=api/), alice.click('form.filters button[type=submit]')]);
        const url = new URL(alice.url());
        expect(Object.fromEntries(url.searchParams)).toEqual({ filter: 'active', search: 'api' });
        expect((await hosts()).sort()).toEqual(['api-staging.acme.test', 'api.acme.test']);

        // The URL alone (a bookmark) gives the same list; the inactive tab keeps the search.
        await alice.goto(url.href);
        expect((await hosts()).sort()).toEqual(['api-staging.acme.test', 'api.acme.test']);
        expect(await alice.locator('nav.tabs a[aria-current]').textContent()).toBe('Active');
        await alice.click('nav.tabs >> text=Inactive');
        expect(Object.fromEntries(new URL(alice.url()).searchParams)).toEqual({ filter: 'inactive', search: 'api' });
        expect(await alice.locator('main').textContent()).toContain('No host matches.');
        // The knowledge filters too: wildcard hosts only (none here), then back to the default.
        await alice.selectOption('#wildcard', 'only');
        await Promise.all([alice.waitForURL(/wildcard=only/), alice.click('form.filters button[type=submit]')]);
        expect(Object.fromEntries(new URL(alice.url()).searchParams)).toEqual({
          filter: 'inactive',
          search: 'api',
          wildcard: 'only',
        });
        expect(await alice.inputValue('#wildcard')).toBe('only');

        // A bad filter is the page's own 400, not a crash.
        const bad = await alice.goto(`${server.baseUrl}/app/domains/acme.test?filter=sideways`);
        expect(bad?.status()).toBe(400);
        expect(await alice.locator('main').textContent()).toContain('filter must be one of');
        expect(await alice.locator('main a[href="/app"]').textContent()).toBe('Back to the dashboard');
      },
    ),
  );

  it(
    'searches every host as one types, and without JavaScript by the form',
    withScreenshot(
      () => page,
      'dashboard-search',
      async () => {
        const alice = await signIn('Alice');
        await alice.goto(`${server.baseUrl}/app/search`);
        await alice.locator('#q').pressSequentially('api-st', { delay: 30 });
        const row = alice.locator('#results table.hosts tbody tr');
        await alice.waitForFunction(
          () => (globalThis as Json).document.querySelectorAll('#results table.hosts tbody tr').length === 1,
        );
        expect(await row.locator('td').first().textContent()).toBe('api-staging.acme.test');
        expect(new URL(alice.url()).searchParams.get('q')).toBe('api-st');
        await alice.fill('#q', 'a'); // one character: the answer for the two before must not stay
        await alice.waitForFunction(
          () => new URL((globalThis as Json).location.href as string).searchParams.get('q') === 'a',
        );
        await alice.waitForFunction(() =>
          ((globalThis as Json).document.querySelector('#results').textContent as string).includes('at least 2'),
        );
        expect(await alice.locator('#results table').count()).toBe(0);

        const plain = await (
          await browser.newContext({ javaScriptEnabled: false, storageState: await alice.context().storageState() })
        ).newPage();
        await plain.goto(`${server.baseUrl}/app/search`);
        await plain.fill('#q', 'www');
        await Promise.all([plain.waitForURL(/q=www/), plain.click('form[role=search] button')]);
        expect(await plain.locator('#results table.hosts tbody tr td:first-child').allTextContents()).toEqual([
          'www.acme.test',
        ]);
        await plain.goto(`${server.baseUrl}/app/search?q=w`);
        expect(await plain.locator('#results').textContent()).toContain('at least 2 characters');
        await plain.context().close();
      },
    ),
  );

  it(
    'offers the queue button to a write owner only; a read-only owner cannot queue even by a forged form',
    withScreenshot(
      () => page,
      'dashboard-queue',
      async () => {
        const carol = await signIn('Carol');
        await carol.goto(`${server.baseUrl}/app/domains/acme.test`);
        expect(await carol.locator('table.hosts tbody tr').count()).toBe(4);
        expect(await carol.locator('form.queue').count()).toBe(0);
        const csrf = await carol.inputValue('form[action="/account/sign-out"] input[name=_csrf]');
        const forged = await carol.context().request.post(`${server.baseUrl}/app/domains/acme.test/scans`, {
          form: { _csrf: csrf },
          headers: { origin: server.baseUrl },
        });
        expect(forged.status()).toBe(403);
        expect(await forged.text()).toContain('write scope');

        const alice = await signIn('Alice');
        await alice.goto(`${server.baseUrl}/app/domains/acme.test`);
        await Promise.all([
          alice.waitForURL(`${server.baseUrl}/app/domains/acme.test#scans`),
          alice.click('form.queue button'),
        ]);
        // Back on the page (a reload does not post again), which shows the scan queued or already running, or,
        // when the worker was quicker still, the scan in its list.
        const notice = (await alice.locator('[role=status]').allTextContents()).join(' ');
        const lastTrigger = await alice.locator('#scans tbody tr td:nth-child(2)').allTextContents();
        expect(/A scan of acme\.test is (queued|running)/.test(notice) || lastTrigger[0] === 'api').toBe(true);
        await waitFor('the queued scan', async () => {
          const { body } = await api('/scans?domain=acme.test&limit=1');
          return body.data[0]?.trigger === 'api' ? true : undefined;
        });
        await alice.reload();
        expect(await alice.locator('#scans tbody tr').first().locator('td').nth(1).textContent()).toBe('api');
      },
    ),
  );

  it(
    'shows an owner without an active key no data, and nothing of another owner',
    withScreenshot(
      () => page,
      'dashboard-other-user',
      async () => {
        const bob = await signIn('Bob');
        for (const path of [
          '/app',
          '/app/programs',
          '/app/domains/acme.test',
          '/app/search?q=acme',
          '/app/hosts/www.acme.test',
        ]) {
          const response = await bob.goto(`${server.baseUrl}${path}`);
          expect([path, response?.status()]).toEqual([path, 200]);
          const text = (await bob.locator('main').textContent()) ?? '';
          expect(text).toContain('you have no active key');
          expect(text).not.toMatch(/www\.acme\.test|api\.acme\.test|Acme/);
        }
        expect(await bob.locator('form.queue').count()).toBe(0);
        const stream = await bob.context().request.get(`${server.baseUrl}/app/stream`);
        expect(stream.status()).toBe(403);
        await bob.goto(`${server.baseUrl}/account`);
        expect(await bob.locator('main').textContent()).not.toContain('recon');

        // Signed out, every page sends the browser to the sign-in form.
        const anonymous = await browser.newContext();
        const res = await anonymous.request.get(`${server.baseUrl}/app/domains/acme.test`, { maxRedirects: 0 });
        expect([res.status(), res.headers().location]).toEqual([
          303,
          '/account/sign-in?next=%2Fapp%2Fdomains%2Facme.test',
        ]);
        expect((await anonymous.request.get(`${server.baseUrl}/app/stream`)).status()).toBe(401);
        // Before its parameters are looked at: a bad one does not tell a visitor more than the redirect.
        const bad = await anonymous.request.get(`${server.baseUrl}/app/domains/NOT_A_DOMAIN?filter=x`, {
          maxRedirects: 0,
        });
        expect(bad.status()).toBe(303);
        await anonymous.close();
      },
    ),
  );

  it("counts an owner's live lists against the streams one key may hold, and says when to come back", async () => {
    const alice = await signIn('Alice');
    const cookie = (await alice.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const open = () =>
      new Promise<IncomingMessage>((resolve, reject) =>
        get(`${server.baseUrl}/app/stream`, { headers: { cookie } }, resolve).on('error', reject),
      );
    const held: IncomingMessage[] = [];
    try {
      for (let i = 0; i < 3; i++) held.push(await open());
      expect(held.map((r) => [r.statusCode, r.headers['content-type']])).toEqual(
        Array(3).fill([200, 'text/event-stream; charset=utf-8']),
      );
      const refused = await open();
      held.push(refused);
      expect([refused.statusCode, refused.headers['retry-after'], refused.headers['content-type']]).toEqual([
        503,
        expect.stringMatching(/^\d+$/),
        'text/html; charset=utf-8',
      ]);
    } finally {
      for (const r of held) r.destroy();
    }
  });

  it('fits a phone: no page is wider than its screen', async () => {
    const alice = await signIn('Alice', { viewport: { width: 390, height: 844 }, isMobile: true });
    for (const path of PAGES) {
      await alice.goto(`${server.baseUrl}${path}`);
      const width = await alice.evaluate(() => (globalThis as Json).document.documentElement.scrollWidth as number);
      expect([path, width]).toEqual([path, 390]);
    }
  });

  it('sends each page at most 100 KB of script, compressed, all of it from this origin', async () => {
    const alice = await signIn('Alice');
    const sources = new Set<string>();
    for (const path of [
      '/app',
      '/app/programs',
      '/app/domains/acme.test',
      '/app/search?q=acme',
      '/app/hosts/www.acme.test',
    ]) {
      await alice.goto(`${server.baseUrl}${path}`);
      for (const src of await alice.locator('script').evaluateAll((s) => s.map((e) => (e as Json).src as string))) {
        sources.add(src);
      }
      expect(await alice.locator('script:not([src])').count()).toBe(0); // no inline script
    }
    // Each named with the digest of its content, so a page never runs a cached script of another release.
    expect([...sources].map((src) => new URL(src).pathname).sort()).toEqual(['/app/app.js', '/app/uplot.js']);
    for (const src of sources) expect(new URL(src).searchParams.get('v')).toMatch(/^[0-9a-f]{12}$/);
    let total = 0;
    for (const src of sources) {
      // The bytes on the wire (fetch would decompress them).
      const { status, encoding, bytes } = await new Promise<{ status?: number; encoding?: string; bytes: number }>(
        (resolve, reject) =>
          get(src, { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
            let bytes = 0;
            res.on('data', (chunk: Buffer) => (bytes += chunk.length));
            res.on('end', () => resolve({ status: res.statusCode, encoding: res.headers['content-encoding'], bytes }));
          }).on('error', reject),
      );
      expect([src, status, encoding]).toEqual([src, 200, 'br']);
      total += bytes;
    }
    expect(total).toBeGreaterThan(10_000); // uPlot is in it
    expect(total).toBeLessThanOrEqual(100 * 1024);
  });

  it(
    'has no serious or critical accessibility violation on any page, light or dark',
    withScreenshot(
      () => page,
      'dashboard-axe',
      async () => {
        const found: string[] = [];
        for (const colorScheme of ['light', 'dark'] as const) {
          const alice = await signIn('Alice', { colorScheme });
          for (const path of PAGES) {
            await alice.goto(`${server.baseUrl}${path}`);
            await alice.waitForLoadState('networkidle').catch(() => undefined); // the live list keeps a stream open
            const violations = await axeViolations(alice);
            found.push(...violations.map((v) => `${colorScheme} ${path}: ${v}`));
          }
          const signedOut = await (await browser.newContext({ colorScheme })).newPage();
          await signedOut.goto(`${server.baseUrl}/account/sign-in`);
          found.push(...(await axeViolations(signedOut)).map((v) => `${colorScheme} sign-in: ${v}`));
          await signedOut.context().close();
        }
        expect(found).toEqual([]);
      },
    ),
  );

  /** axe-core's serious and critical violations on the page, as "rule: target" lines. */
  async function axeViolations(target: Page): Promise<string[]> {
    await target.evaluate(AXE);
    const result = await target.evaluate(
      () => (globalThis as Json).axe.run({ resultTypes: ['violations'] }) as Promise<Json>,
    );
    return (result.violations as Json[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) =>
        (v.nodes as Json[]).map((n) => `${v.id as string}: ${JSON.stringify(n.target)} ${n.failureSummary as string}`),
      );
  }
});
