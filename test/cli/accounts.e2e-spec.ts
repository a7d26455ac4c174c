import { runCli } from '../fixtures/cli.js';
import { type CliBesideService, cliBesideService, lastLine } from '../fixtures/cli-service.js';
import { type TestApp, bearer, expectError } from '../fixtures/test-app.js';

/** The operator CLI's keys and users, beside a running service on the same database. */
describe('operator CLI: keys and users', () => {
  const on = cliBesideService();
  let t: TestApp;
  let dataDir: string;
  let cli: CliBesideService['cli'];
  let runCliAs: CliBesideService['cliWithInput'];
  beforeAll(() => void ({ t, dataDir, cli, cliWithInput: runCliAs } = on));

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

  it('users create reads the password from stdin, stores only its scrypt hash, and owns keys made for its email', async () => {
    const created = await runCliAs(
      ['users', 'create', '--email', 'Dana@Example.com', '--name', 'Dana'],
      'dana password 1\n',
    );
    expect(created.code).toBe(0);
    const id = lastLine(created);
    const [row] = await t.dataSource.query(`SELECT id, email, name, password_hash FROM users WHERE id = $1`, [id]);
    expect(row).toMatchObject({ email: 'dana@example.com', name: 'Dana' });
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row.password_hash).not.toContain('dana password');
    expect((await runCliAs(['users', 'create', '--email', 'dana@example.com'], 'another password\n')).stderr).toBe(
      'error: a user with the email dana@example.com already exists\n',
    );
    expect((await runCliAs(['users', 'create', '--email', 'eve@example.com'], 'short\n')).stderr).toBe(
      'error: the password must be at least 10 characters\n',
    );
    expect((await runCliAs(['users', 'create', '--email', 'not-an-address'], 'long enough pw\n')).code).toBe(1);

    const token = lastLine(await cli('tokens', 'create', '--name', 'dana-ci', '--user', 'dana@example.com'));
    expect((await t.get('/me', bearer(token))).body.data.user_id).toBe(id);
    expect((await cli('tokens', 'create', '--name', 'x', '--user', 'nobody@example.com')).stderr).toBe(
      'error: no user with the email nobody@example.com\n',
    );
    expect((await cli('users', 'list')).stdout).toMatch(new RegExp(`${id}\\s+dana@example\\.com\\s+Dana\\s+1\\s`));

    // Disabling signs the user out and revokes their keys; enabling lets them sign in again, keys stay revoked.
    await t.dataSource.query(
      `INSERT INTO sessions (id_hash, user_id, csrf_token, expires_at) VALUES ('h', $1, 'c', now() + interval '1 day')`,
      [id],
    );
    expect((await cli('users', 'disable', 'dana@example.com')).stdout).toBe(
      'disabled dana@example.com; revoked 1 key(s)\n',
    );
    expectError(await t.get('/me', bearer(token)), 401, 'revoked_token');
    expect(await t.dataSource.query(`SELECT 1 FROM sessions WHERE user_id = $1`, [id])).toEqual([]);
    expect((await cli('users', 'enable', 'dana@example.com')).stdout).toBe('enabled dana@example.com\n');
    expect((await t.dataSource.query(`SELECT disabled_at FROM users WHERE id = $1`, [id]))[0].disabled_at).toBeNull();
    const before = (await t.dataSource.query(`SELECT password_hash FROM users WHERE id = $1`, [id]))[0].password_hash;
    expect((await runCliAs(['users', 'password', 'dana@example.com'], 'a new password\n')).stdout).toBe(
      'set the password of dana@example.com\n',
    );
    expect((await t.dataSource.query(`SELECT password_hash FROM users WHERE id = $1`, [id]))[0].password_hash).not.toBe(
      before,
    );
  });

  it('tokens create refuses a disabled user, named by email or by id, in one line and writes no key', async () => {
    const id = lastLine(await runCliAs(['users', 'create', '--email', 'frank@example.com'], 'frank password 1\n'));
    expect((await cli('users', 'disable', 'frank@example.com')).code).toBe(0);
    for (const user of ['frank@example.com', id]) {
      const r = await cli('tokens', 'create', '--name', 'frank-key', '--user', user);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('error: user frank@example.com is disabled: enable them first (users enable)\n');
    }
    expect(await t.dataSource.query(`SELECT 1 FROM api_keys WHERE user_id = $1`, [id])).toEqual([]);
  });

  it('tokens revoke by a name two users share asks for the id', async () => {
    await cli('tokens', 'create', '--name', 'shared', '--user', 'u1');
    await cli('tokens', 'create', '--name', 'shared', '--user', 'u2');
    expect((await cli('tokens', 'revoke', 'shared')).stderr).toBe(
      'error: 2 active keys are named "shared" (of different users): give the id\n',
    );
    const [{ id }] = await t.dataSource.query(`SELECT id FROM api_keys WHERE name = 'shared' AND user_id = 'u1'`);
    expect((await cli('tokens', 'revoke', id)).stdout).toBe(`Revoked key "shared" (id ${id}).\n`);
  });

  it('users create names the account page of the service: PUBLIC_URL, else HOST and PORT where it answers', async () => {
    const port = new URL(t.baseUrl).port;
    const env = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATA_DIR: dataDir };
    const created = async (email: string, settings: Record<string, string>) =>
      (
        await runCli(
          ['users', 'create', '--email', email],
          { ...env, LOG_LEVEL: 'error', ...settings },
          'pw long enough\n',
        )
      ).stderr;
    const signIn = (email: string, url: string) =>
      `Created user ${email}. They sign in at ${url} with this password.\n`;
    expect(await created('on-port@example.com', { PORT: port })).toBe(
      signIn('on-port@example.com', `http://127.0.0.1:${port}/account`),
    );
    expect(await created('bind-all@example.com', { PORT: port, HOST: '0.0.0.0' })).toBe(
      signIn('bind-all@example.com', `http://127.0.0.1:${port}/account`),
    );
    expect(await created('public@example.com', { PUBLIC_URL: 'https://monitor.example.com/' })).toBe(
      signIn('public@example.com', 'https://monitor.example.com/account'),
    );
    // Run without the service's PORT, the command does not name a page no service answers.
    expect(await created('elsewhere@example.com', { PORT: '1' })).toBe(
      'Created user elsewhere@example.com. They sign in at /account with this password (no service answers at ' +
        "http://127.0.0.1:1 now: give this command the service's PUBLIC_URL or PORT to name its address).\n",
    );
  });

  it('refuses a duplicate active key name', async () => {
    expect((await cli('tokens', 'create', '--name', 'dup')).code).toBe(0);
    const again = await cli('tokens', 'create', '--name', 'dup');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });
});
