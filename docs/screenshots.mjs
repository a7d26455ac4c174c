// Writes the dashboard's pictures in docs/images/, light and dark: `npm run screenshots` (after `npm run build`).
// It fills a fresh embedded database with the demo data set (seed-demo), creates a user with a write key, starts
// the built service on it and drives Debian's Chromium (CHROMIUM_PATH) through every page.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'sm-shots-'));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error', DATABASE_URL: '' };
const cli = (args, input) => {
  const r = spawnSync(process.execPath, ['dist/cli.js', ...args], { cwd: root, env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cli ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split('\n').at(-1);
};

cli(['seed-demo', '--domains', '300', '--hosts', '60000']);
cli(['users', 'create', '--email', 'alice@example.com', '--name', 'Alice'], 'a long demo password\n');
cli(['tokens', 'create', '--name', 'recon-box', '--user', 'alice@example.com', '--scopes', 'read,write']);

const server = spawn(process.execPath, ['dist/main.js'], {
  cwd: root,
  env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKER: 'off' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const base = await new Promise((resolve, reject) => {
  let out = '';
  const read = (d) => {
    out += d;
    const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
    if (m) resolve(m[1]);
  };
  server.stdout.on('data', read);
  server.stderr.on('data', read);
  server.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  for (const colorScheme of ['light', 'dark']) {
    const page = await (await browser.newContext({ colorScheme, viewport: { width: 1280, height: 860 } })).newPage();
    await page.goto(`${base}/app`);
    await page.fill('#email', 'alice@example.com');
    await page.fill('#password', 'a long demo password');
    await Promise.all([page.waitForURL(`${base}/app`), page.click('button[type=submit]')]);
    const shot = async (name) => {
      await page.waitForTimeout(400); // the charts draw after load
      await page.screenshot({ path: join(root, 'docs', 'images', `dashboard-${name}-${colorScheme}.png`) });
    };
    await shot('overview');
    await page.goto(`${base}/app/programs?sort=total_subdomains`);
    await shot('programs');
    const domain = await page.locator('table.programs tbody tr td a').first().textContent();
    await page.goto(`${base}/app/domains/${domain}?filter=new`);
    await shot('domain');
    const host = await page.locator('table.hosts tbody tr td a').first().textContent();
    await page.goto(`${base}/app/search`);
    await page.locator('#q').pressSequentially('api-', { delay: 40 });
    await page.waitForTimeout(800);
    await shot('search');
    await page.goto(`${base}/app/hosts/${host}`);
    await shot('host');
    await page.goto(`${base}/account`);
    await shot('account');
    await page.context().close();
  }
} finally {
  await browser.close();
  server.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
