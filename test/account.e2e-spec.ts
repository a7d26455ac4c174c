import { createHash } from 'node:crypto';
import { UsersService } from '../src/users/users.service.js';
import { type TestApp, startTestApp } from './fixtures/test-app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Page {
  status: number;
  headers: Headers;
  text: string;
  cookies: string[];
}

/** A browser's part, by hand: cookies kept between requests, forms posted urlencoded, redirects not followed. */
class Client {
  readonly jar = new Map<string, string>();
  constructor(
    private readonly t: TestApp,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  async request(method: string, path: string, form?: Record<string, string>): Promise<Page> {
    const res = await fetch(this.t.baseUrl + path, {
      method,
      redirect: 'manual',
      headers: {
        ...this.extraHeaders,
        cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body: form && new URLSearchParams(form).toString(),
    });
    const cookies = res.headers.getSetCookie();
    for (const c of cookies) {
      const [pair, ...attributes] = c.split('; ');
      const [name, value] = pair.split('=');
      if (attributes.includes('Max-Age=0')) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), cookies };
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, form: Record<string, string>) => this.request('POST', path, form);

  /** The CSRF token of the page's forms. */
  static csrf(page: Page): string {
    return /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  }

  async signIn(email: string, password: string): Promise<Page> {
    const form = await this.get('/account/sign-in');
    return this.post('/account/sign-in', { _csrf: Client.csrf(form), email, password });
  }
}

const PASSWORD = 'a long password';

describe('the account page over HTTP', () => {
  let t: TestApp;
  let aliceId: string;

  beforeAll(async () => {
    t = await startTestApp();
    const users = t.app.get(UsersService);
    aliceId = (await users.create('Alice@Example.com', '<b>Alice</b>', PASSWORD)).id;
    await users.create('bob@example.com', undefined, PASSWORD);
  });
  afterAll(() => t.close());

  const csp = (page: Page) => page.headers.get('content-security-policy');

  it('sends a visitor to the sign-in form, which sets its CSRF cookie and a strict CSP', async () => {
    const c = new Client(t);
    const home = await c.get('/account');
    expect([home.status, home.headers.get('location')]).toEqual([303, '/account/sign-in']);
    const form = await c.get('/account/sign-in');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(csp(form)).toBe(
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(form.cookies).toEqual([
      expect.stringMatching(/^sm_sign_in=[\w-]{43}; Max-Age=3600; Path=\/account; HttpOnly; SameSite=Strict$/),
    ]);
    expect(Client.csrf(form)).toBe(c.jar.get('sm_sign_in'));
    const css = await c.get('/account/account.css');
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
  });

  it('signs in with a session cookie: HttpOnly, SameSite=Lax, not Secure over plain HTTP', async () => {
    const c = new Client(t);
    const res = await c.signIn('alice@example.com', PASSWORD);
    expect([res.status, res.headers.get('location')]).toEqual([303, '/account']);
    // The session's cookie at Path=/, and the one of the path it had before the dashboard (/account) cleared.
    expect(res.cookies.filter((s) => s.startsWith('sm_session='))).toEqual([
      'sm_session=; Max-Age=0; Path=/account; HttpOnly; SameSite=Lax',
      expect.stringMatching(/^sm_session=[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/),
    ]);
    // The database keeps a hash of the session id, never the id.
    const id = c.jar.get('sm_session') as string;
    const [row] = await t.dataSource.query(`SELECT id_hash, user_id FROM sessions`);
    expect(row).toEqual({ id_hash: createHash('sha256').update(id).digest('hex'), user_id: aliceId });
    const home = await c.get('/account');
    expect(home.status).toBe(200);
    expect(home.text).toContain('&lt;b&gt;Alice&lt;/b&gt;'); // names are escaped
    expect(home.text).not.toContain('<b>Alice</b>');
  });

  it('comes back to the dashboard page that asked for the sign-in, and never to another origin', async () => {
    const back = async (next: string) => {
      const c = new Client(t);
      const form = await c.get(`/account/sign-in?next=${encodeURIComponent(next)}`);
      const field = /name="next" value="([^"]*)"/.exec(form.text)?.[1];
      // The form carries next only when it is one of ours; the post is checked again (it may be forged).
      const res = await c.post('/account/sign-in', {
        _csrf: Client.csrf(form),
        email: 'alice@example.com',
        password: PASSWORD,
        next,
      });
      return [field?.replace(/&amp;/g, '&') ?? null, res.status, res.headers.get('location')];
    };
    expect(await back('/app/domains/example.com?filter=new&search=api')).toEqual([
      '/app/domains/example.com?filter=new&search=api',
      303,
      '/app/domains/example.com?filter=new&search=api',
    ]);
    for (const foreign of [
      '//evil.example/app',
      'https://evil.example/app',
      '/\\evil.example',
      '/apple',
      'app',
      '/app/\u20ac', // no header may carry it: refused, not a 500
      '/app\u0001',
    ]) {
      expect([foreign, ...(await back(foreign))]).toEqual([foreign, null, 303, '/account']);
    }
    // Already signed in: the form sends the browser straight on.
    const c = new Client(t);
    await c.signIn('alice@example.com', PASSWORD);
    const again = await c.get('/account/sign-in?next=%2Fapp');
    expect([again.status, again.headers.get('location')]).toEqual([303, '/app']);
  });

  it('moves a session cookie of the old path (/account) to / and reads past one that has ended', async () => {
    const c = new Client(t);
    await c.signIn('alice@example.com', PASSWORD);
    const live = c.jar.get('sm_session') as string;
    // A browser holding the cookie at Path=/account only, as before the dashboard: /app cannot see it, and the
    // sign-in form it is sent to moves it rather than send the browser back.
    const form = await c.get('/account/sign-in?next=%2Fapp');
    expect([form.status, form.headers.get('location')]).toEqual([303, '/app']);
    expect(form.cookies.at(-1)).toBe(`sm_session=${live}; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax`);
    // Both sent, the ended one first (the longer path comes first): the current one is used.
    const both = new Client(t);
    both.jar.set('sm_session', `${'x'.repeat(43)}; sm_session=${live}`);
    expect((await both.get('/account')).status).toBe(200);
  });

  it('refuses a sign-in post without the form token, and says the same for a wrong password and an unknown user', async () => {
    const c = new Client(t);
    const forged = await c.post('/account/sign-in', { email: 'alice@example.com', password: PASSWORD });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('Form expired');
    expect(forged.cookies).toEqual([]);
    const wrong = await c.signIn('alice@example.com', 'not the password');
    const unknown = await c.signIn('nobody@example.com', PASSWORD);
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.text).toContain('Wrong email or password.');
    expect(unknown.text).toContain('Wrong email or password.');
    expect(wrong.text).toContain('value="alice@example.com"'); // the address stays filled in
    await t.dataSource.query(`DELETE FROM sign_in_failures`);
  });

  it('slows sign-ins after five failures for an address: 429 with Retry-After, even with the right password', async () => {
    const c = new Client(t);
    for (let i = 0; i < 5; i++) expect((await c.signIn('bob@example.com', `wrong ${i}`)).status).toBe(401);
    const slowed = await c.signIn('bob@example.com', PASSWORD);
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThanOrEqual(14);
    expect(slowed.text).toMatch(/Too many failed sign-ins. Try again in \d+ seconds./);
    expect(slowed.cookies.some((s) => s.startsWith('sm_session='))).toBe(false);
    const [row] = await t.dataSource.query(`SELECT failures FROM sign_in_failures WHERE key = 'email:bob@example.com'`);
    expect(row.failures).toBe(5);
    // Once the wait has passed, the right password works and the count starts again.
    await t.dataSource.query(`UPDATE sign_in_failures SET last_failed_at = now() - interval '16 seconds'`);
    expect((await c.signIn('bob@example.com', PASSWORD)).status).toBe(303);
    expect(await t.dataSource.query(`SELECT key FROM sign_in_failures WHERE key LIKE 'email:%'`)).toEqual([]);
    await t.dataSource.query(`DELETE FROM sign_in_failures`);
  });

  it('creates a key shown once and stored as a hash; needs the form token; refuses a duplicate name', async () => {
    const c = new Client(t);
    await c.signIn('alice@example.com', PASSWORD);
    const home = await c.get('/account');
    const csrf = Client.csrf(home);
    expect((await c.post('/account/tokens', { name: 'ci', scope: 'read' })).status).toBe(403);
    expect((await c.post('/account/tokens', { _csrf: 'x'.repeat(43), name: 'ci', scope: 'read' })).status).toBe(403);

    const created = await c.post('/account/tokens', { _csrf: csrf, name: 'ci', scope: 'write' });
    expect(created.status).toBe(201);
    const key = /value="(sm_live_[A-Za-z0-9]{40})"/.exec(created.text)?.[1] as string;
    expect(created.text.split(key)).toHaveLength(2); // once
    const [row] = await t.dataSource.query(`SELECT user_id, key_hash, scopes FROM api_keys WHERE name = 'ci'`);
    expect(row).toEqual({
      user_id: aliceId,
      key_hash: createHash('sha256').update(key).digest('hex'),
      scopes: ['read', 'write'],
    });
    const me = await t.get('/me', { 'x-api-key': key });
    expect(me.body).toEqual({ data: { user_id: aliceId, key: { name: 'ci', scopes: ['read', 'write'] } } });
    expect((await c.get('/account')).text).not.toContain(key.slice(8));

    const again = await c.post('/account/tokens', { _csrf: csrf, name: 'ci', scope: 'read' });
    expect(again.status).toBe(400);
    expect(again.text).toContain('An active key named &quot;ci&quot; already exists.');
    const badScope = await c.post('/account/tokens', { _csrf: csrf, name: 'other', scope: 'admin' });
    expect(badScope.status).toBe(400);
    // Another user may use the same name: names are unique per owner.
    const bob = new Client(t);
    await bob.signIn('bob@example.com', PASSWORD);
    const bobs = await bob.post('/account/tokens', {
      _csrf: Client.csrf(await bob.get('/account')),
      name: 'ci',
      scope: 'read',
    });
    expect(bobs.status).toBe(201);
  });

  it('refuses a key name holding control characters or bidirectional overrides, saying why beside the form', async () => {
    const c = new Client(t);
    await c.signIn('alice@example.com', PASSWORD);
    const csrf = Client.csrf(await c.get('/account'));
    for (const name of ['deploy\x1b[2J', 'invoice\u202egpj.exe', 'tab\tname', 'c1\u009b31m']) {
      const refused = await c.post('/account/tokens', { _csrf: csrf, name, scope: 'read' });
      expect({ name, status: refused.status }).toEqual({ name, status: 400 });
      expect(refused.text).toContain('Name must not contain control characters or bidirectional overrides.');
    }
    const names: { name: string }[] = await t.dataSource.query(`SELECT name FROM api_keys WHERE user_id = $1`, [
      aliceId,
    ]);
    expect(names.filter((k) => /deploy|invoice|tab|c1/.test(k.name))).toEqual([]);
  });

  it("revokes only the owner's key: another user's id is not found, and the key stops on the next request", async () => {
    const c = new Client(t);
    await c.signIn('alice@example.com', PASSWORD);
    const csrf = Client.csrf(await c.get('/account'));
    const created = await c.post('/account/tokens', { _csrf: csrf, name: 'to-revoke', scope: 'read' });
    const key = /value="(sm_live_[A-Za-z0-9]{40})"/.exec(created.text)?.[1] as string;
    const [{ id }] = await t.dataSource.query(`SELECT id FROM api_keys WHERE name = 'to-revoke'`);

    const bob = new Client(t);
    await bob.signIn('bob@example.com', PASSWORD);
    const bobCsrf = Client.csrf(await bob.get('/account'));
    const forged = await bob.post(`/account/tokens/${id}/revoke`, { _csrf: bobCsrf });
    expect(forged.status).toBe(404);
    expect((await t.get('/me', { 'x-api-key': key })).status).toBe(200);
    expect((await bob.post(`/account/tokens/not-a-uuid/revoke`, { _csrf: bobCsrf })).status).toBe(404);

    const revoked = await c.post(`/account/tokens/${id}/revoke`, { _csrf: csrf });
    expect([revoked.status, revoked.headers.get('location')]).toEqual([303, '/account']);
    const me = await t.get('/me', { 'x-api-key': key });
    expect([me.status, me.body.error.code]).toEqual([401, 'revoked_token']);
  });

  it('signs out: the session is gone from the database and the cookie cleared', async () => {
    const c = new Client(t);
    await c.signIn('bob@example.com', PASSWORD);
    const before = (await t.dataSource.query(`SELECT count(*)::int AS n FROM sessions`))[0].n as number;
    const out = await c.post('/account/sign-out', { _csrf: Client.csrf(await c.get('/account')) });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/account/sign-in']);
    expect(out.cookies).toEqual([
      'sm_session=; Max-Age=0; Path=/account; HttpOnly; SameSite=Lax',
      'sm_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax',
    ]);
    expect((await t.dataSource.query(`SELECT count(*)::int AS n FROM sessions`))[0].n).toBe(before - 1);
    expect((await c.get('/account')).status).toBe(303);
  });

  it('counts a burst of parallel attempts one by one: only the first five are checked', async () => {
    const c = new Client(t);
    const csrf = Client.csrf(await c.get('/account/sign-in'));
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        c.post('/account/sign-in', { _csrf: csrf, email: 'race@example.com', password: `guess ${i}` }),
      ),
    );
    const statuses = burst.map((p) => p.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
    await t.dataSource.query(`DELETE FROM sign_in_failures`);
  });

  it('refuses form posts from another origin, a sibling subdomain included', async () => {
    const c = new Client(t);
    await c.signIn('alice@example.com', PASSWORD);
    const csrf = Client.csrf(await c.get('/account'));
    // A valid sign-in form and token: only where the post comes from differs.
    const signInFrom = async (headers: Record<string, string>) => {
      const client = new Client(t, headers);
      return (await client.signIn('alice@example.com', 'wrong password')).status;
    };
    expect(await signInFrom({ origin: 'https://evil.example.com' })).toBe(403);
    expect(await signInFrom({ origin: t.baseUrl, 'sec-fetch-site': 'same-site' })).toBe(403);
    expect(await signInFrom({ 'sec-fetch-site': 'cross-site' })).toBe(403);
    expect(await signInFrom({ origin: 'null', 'sec-fetch-site': 'same-origin' })).toBe(401); // no-referrer pages
    expect(await signInFrom({ origin: t.baseUrl })).toBe(401);
    await t.dataSource.query(`DELETE FROM sign_in_failures`);
    const fromElsewhere = new Client(t, { 'sec-fetch-site': 'cross-site' });
    for (const [k, v] of c.jar) fromElsewhere.jar.set(k, v);
    expect((await fromElsewhere.post('/account/tokens', { _csrf: csrf, name: 'x', scope: 'read' })).status).toBe(403);
    const sameOrigin = new Client(t, { origin: t.baseUrl, 'sec-fetch-site': 'same-origin' });
    for (const [k, v] of c.jar) sameOrigin.jar.set(k, v);
    expect((await sameOrigin.post('/account/tokens', { _csrf: csrf, name: 'same-origin', scope: 'read' })).status).toBe(
      201,
    );
  });

  it('settles two creations of one name at once: one key, and the other told why', async () => {
    const c = new Client(t);
    await c.signIn('alice@example.com', PASSWORD);
    const csrf = Client.csrf(await c.get('/account'));
    const both = await Promise.all(
      [1, 2].map(() => c.post('/account/tokens', { _csrf: csrf, name: 'twin', scope: 'read' })),
    );
    expect(both.map((p) => p.status).sort()).toEqual([201, 400]);
    expect(both.find((p) => p.status === 400)?.text).toContain('An active key named &quot;twin&quot; already exists.');
  });

  it('keeps one sign-in token across tabs, and sends a reload of the new-key page back to the list', async () => {
    const c = new Client(t);
    const first = Client.csrf(await c.get('/account/sign-in'));
    expect(Client.csrf(await c.get('/account/sign-in'))).toBe(first);
    const reload = await c.get('/account/tokens');
    expect([reload.status, reload.headers.get('location')]).toEqual([303, '/account']);
  });

  it('answers its errors as pages, and keeps forms away from the API', async () => {
    const c = new Client(t);
    const signedOut = await c.post('/account/tokens', { _csrf: 'x', name: 'n', scope: 'read' });
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(signedOut.text).toContain('Your session has ended');
    const form = await t.request('POST', '/api/v1/scans', {
      body: 'domain=example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': await t.token(['read', 'write']) },
    });
    expect([form.status, (form.body as Json).error.code]).toEqual([400, 'invalid_body']);
  });
});

describe('the account page behind one TLS proxy (TRUST_PROXY=1)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: '1' });
    await t.app.get(UsersService).create('carol@example.com', undefined, PASSWORD);
  });
  afterAll(() => t.close());

  it('marks its cookies Secure when the proxy says the request came over HTTPS', async () => {
    // The client sent X-Forwarded-For: 198.51.100.1 itself; the proxy appended the address it saw.
    const c = new Client(t, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    const res = await c.signIn('carol@example.com', 'wrong password');
    expect(res.status).toBe(401);
    // Failures count against the client the proxy names, not the proxy.
    expect(await t.dataSource.query(`SELECT key FROM sign_in_failures ORDER BY key`)).toEqual([
      { key: 'email:carol@example.com' },
      { key: 'ip:203.0.113.9' },
    ]);
    expect((await c.get('/account/sign-in')).cookies[0]).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
    const ok = await c.signIn('carol@example.com', PASSWORD);
    expect(ok.cookies.find((s) => s.startsWith('sm_session=') && s.includes('Path=/;'))).toMatch(
      /; HttpOnly; Secure; SameSite=Lax$/,
    );
  });
});
