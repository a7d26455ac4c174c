import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliResult, runCli } from './fixtures/cli.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';

/**
 * The operator CLI against the same database as a running service: on the embedded database it attaches
 * to the service's socket in DATA_DIR; on the server it uses the same DATABASE_URL.
 */
describe('operator CLI', () => {
  let t: TestApp;
  let dataDir: string;
  let cli: (...args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sm-cli-'));
    t = await startTestApp({}, { dataDir });
    const env = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATA_DIR: dataDir };
    cli = (...args) => runCli(args, { ...env, LOG_LEVEL: 'error' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const lastLine = (r: CliResult) => r.stdout.trim().split('\n').at(-1) ?? '';
  const domainRows = () =>
    t.dataSource.query(`SELECT domain, platform_slug, program, enabled FROM domains ORDER BY domain`);

  it('tokens create prints the new key alone on the last line, once, and it works with either header', async () => {
    const created = await cli('tokens', 'create', '--name', 'laptop', '--scopes', 'read,write', '--user', 'alice');
    expect(created.code).toBe(0);
    const token = lastLine(created);
    expect(token).toMatch(/^sm_live_[A-Za-z0-9]{40}$/);
    expect(created.stdout.match(/sm_live_/g)).toHaveLength(1);
    expect((await t.get('/me', bearer(token))).body).toEqual({
      data: { user_id: 'alice', key: { name: 'laptop', scopes: ['read', 'write'] } },
    });
    expect((await t.get('/me', { 'x-api-key': token })).status).toBe(200);
  });

  it('tokens list never prints a key; tokens revoke stops it on the next request', async () => {
    const token = lastLine(await cli('tokens', 'create', '--name', 'ci'));
    expect((await t.get('/me', bearer(token))).body.data.key.scopes).toEqual(['read']);
    const list = await cli('tokens', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('ci');
    expect(list.stdout).not.toContain(token.slice(12));
    const revoked = await cli('tokens', 'revoke', 'ci');
    expect(revoked.code).toBe(0);
    expectError(await t.get('/me', bearer(token)), 401, 'revoked_token');
  });

  it.each([
    [['tokens', 'create'], /--name is required/],
    [['tokens', 'create', '--name', 'x', '--scopes', 'admin'], /--scopes/],
    [['tokens', 'revoke', 'no-such-key'], /no active key/],
    [['domains', 'add', 'example.com'], /--platform is required/],
    [['domains', 'add', 'example.com', '--platform', 'nowhere'], /unknown platform "nowhere"/],
    [['domains', 'add', 'good.com', 'https://bad.com', '--platform', 'self'], /"https:\/\/bad.com"/],
    [['domains', 'enable', 'never-added.com'], /not tracked: never-added.com/],
    [['no-such-command'], /unknown command/],
  ])('%j fails with exit 1 and one line on stderr, writing nothing', async (args, message) => {
    const before = await domainRows();
    const r = await cli(...args);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(await domainRows()).toEqual(before);
  });

  it('refuses a duplicate active key name', async () => {
    expect((await cli('tokens', 'create', '--name', 'dup')).code).toBe(0);
    const again = await cli('tokens', 'create', '--name', 'dup');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('domains add, disable, enable, list and remove manage tracked root domains', async () => {
    const added = await cli('domains', 'add', 'acme.com', 'acme.co.uk', '--platform', 'hackerone', '--program', 'Acme');
    expect(added.code).toBe(0);
    expect(added.stdout).toBe('added acme.com\nadded acme.co.uk\n');
    expect((await cli('domains', 'add', 'acme.com', '--platform', 'hackerone')).stdout).toBe(
      'already tracked acme.com\n',
    );
    expect((await cli('domains', 'add', 'quiet.io', '--platform', 'self', '--disabled')).code).toBe(0);
    expect(await domainRows()).toEqual([
      { domain: 'acme.co.uk', platform_slug: 'hackerone', program: 'Acme', enabled: true },
      { domain: 'acme.com', platform_slug: 'hackerone', program: 'Acme', enabled: true },
      { domain: 'quiet.io', platform_slug: 'self', program: null, enabled: false },
    ]);

    expect((await cli('domains', 'disable', 'acme.com')).stdout).toBe('disabled acme.com\n');
    expect((await cli('domains', 'enable', 'quiet.io')).stdout).toBe('enabled quiet.io\n');
    const list = await cli('domains', 'list');
    expect(list.stdout).toMatch(/^DOMAIN\s+PLATFORM/);
    expect(list.stdout).toMatch(/acme\.com\s+hackerone\s+Acme\s+no/);
    expect(list.stdout).toMatch(/quiet\.io\s+self\s+-\s+yes/);

    expect((await cli('domains', 'remove', 'acme.co.uk', 'quiet.io')).code).toBe(0);
    expect((await domainRows()).map((d: { domain: string }) => d.domain)).toEqual(['acme.com']);
  });

  it('migrate reports an up-to-date schema', async () => {
    const r = await cli('migrate');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Database schema is up to date.\n');
  });
});
