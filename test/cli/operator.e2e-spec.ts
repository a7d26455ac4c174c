import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../fixtures/cli.js';
import { type CliBesideService, cliBesideService, lastLine } from '../fixtures/cli-service.js';
import type { TestApp } from '../fixtures/test-app.js';

/** The operator CLI's domains, programs, webhooks and the rest, beside a running service on the same database. */
describe('operator CLI', () => {
  const on = cliBesideService();
  let t: TestApp;
  let cli: CliBesideService['cli'];
  let runCliAs: CliBesideService['cliWithInput'];
  beforeAll(() => void ({ t, cli, cliWithInput: runCliAs } = on));
  const domainRows = () =>
    t.dataSource.query(`SELECT domain, platform_slug, program, enabled FROM domains ORDER BY domain`);

  it.each([
    [['tokens', 'create'], /--name is required/],
    [['tokens', 'create', '--name', 'x', '--scopes', 'admin'], /--scopes/],
    [['tokens', 'revoke', 'no-such-key'], /no active key/],
    [['domains', 'add', 'example.com'], /--platform is required/],
    [['domains', 'add', 'example.com', '--platform', 'nowhere'], /unknown platform "nowhere"/],
    [['domains', 'add', 'https://bad.com', '--platform', 'self'], /"https:\/\/bad.com"/],
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

  it('domains add adds the names it can, and names each it refuses with its reason, exiting 1', async () => {
    const r = await cli(
      'domains',
      'add',
      'part-one.com',
      'https://bad.com',
      'shop.part-one.com',
      'part-two.org',
      '--platform',
      'self',
    );
    expect([r.code, r.stdout]).toEqual([1, 'added part-one.com\nadded part-two.org\n']);
    expect(r.stderr.split('\n')).toEqual([
      expect.stringMatching(
        /^error: not added: "https:\/\/bad\.com" .+; "shop\.part-one\.com" is not a root domain \(its root domain is part-one\.com\)$/,
      ),
      '',
    ]);
    const rows = (await domainRows()) as { domain: string }[];
    expect(rows.map((d) => d.domain).filter((d) => d.includes('part-'))).toEqual(['part-one.com', 'part-two.org']);
    expect((await cli('domains', 'remove', 'part-one.com', 'part-two.org')).code).toBe(0);
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

  it("domains exclude add, list and remove manage a domain's exclusion rules", async () => {
    expect((await cli('domains', 'add', 'rules.io', '--platform', 'self')).code).toBe(0);
    const added = await cli('domains', 'exclude', 'add', 'rules.io', '*.Dev.rules.io', 're:^qa\\d+\\.');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(
      /^excluded \*\.dev\.rules\.io \(wildcard, rule \d+\)\nexcluded re:\^qa\\d\+\\\. \(regex, rule \d+\)\n$/,
    );
    expect(added.stderr).toBe('0 hosts moved out of scope.\n');
    const list = await cli('domains', 'exclude', 'list', 'rules.io');
    expect(list.stdout).toMatch(
      /^ID\s+KIND\s+PATTERN\s+ORIGIN\s+ADDED\n\d+\s+wildcard\s+\*\.dev\.rules\.io\s+manual\s/,
    );
    for (const [args, message] of [
      [['rules.io', 're:(a)\\1'], /linear time/],
      [['rules.io', '*.other.io'], /\*\.other\.io names no host of rules\.io/],
      [['nope.io', 'a.nope.io'], /nope\.io is not tracked/],
    ] as const) {
      const refused = await cli('domains', 'exclude', 'add', ...args);
      expect({ args, code: refused.code, lines: refused.stderr.trim().split('\n').length }).toEqual({
        args,
        code: 1,
        lines: 1,
      });
      expect(refused.stderr).toMatch(message);
    }
    const removed = await cli('domains', 'exclude', 'remove', 'rules.io', '*.DEV.rules.io');
    expect([removed.code, removed.stdout]).toEqual([0, 'removed *.dev.rules.io\n']);
    expect((await cli('domains', 'exclude', 'remove', 'rules.io', 'a.rules.io')).code).toBe(1);
    expect(await t.dataSource.query(`SELECT pattern FROM scope_rules`)).toEqual([{ pattern: 're:^qa\\d+\\.' }]);
  });

  it("programs exclude add, list and remove manage a program's rules across its root domains", async () => {
    for (const domain of ['prog-a.io', 'prog-b.io']) {
      expect((await cli('domains', 'add', domain, '--platform', 'intigriti', '--program', 'Prog Co')).code).toBe(0);
    }
    const added = await cli('programs', 'exclude', 'add', 'intigriti', 'Prog Co', 're:^qa\\d+\\.');
    expect([added.code, added.stderr]).toEqual([0, '0 hosts moved out of scope.\n']);
    expect(added.stdout).toMatch(/^excluded re:\^qa\\d\+\\\. \(regex, program rule \d+, 2 root domains\)\n$/);
    const list = await cli('programs', 'exclude', 'list', 'intigriti');
    expect(list.stdout).toMatch(
      /^ID\s+PROGRAM\s+KIND\s+PATTERN\s+DOMAINS\s+ADDED\n\d+\s+Prog Co\s+regex\s+re:\S+\s+2\s/,
    );
    // A root domain tracked under the program later has the rule at once.
    expect((await cli('domains', 'add', 'prog-c.io', '--platform', 'intigriti', '--program', 'Prog Co')).code).toBe(0);
    expect((await cli('domains', 'exclude', 'list', 'prog-c.io')).stdout).toMatch(/\sregex\s+re:\S+\s+program\s/);
    const misspelt = await cli('programs', 'exclude', 'add', 'intigriti', 'Prog Coo', 'a.prog-a.io');
    expect([misspelt.code, misspelt.stderr]).toEqual([
      1,
      expect.stringMatching(/^error: no tracked root domain of intigriti belongs to a program named "Prog Coo"\n$/),
    ]);
    const removed = await cli('programs', 'exclude', 'remove', 'intigriti', 'Prog Co', 're:^qa\\d+\\.');
    expect([removed.code, removed.stdout]).toEqual([0, 'removed re:^qa\\d+\\.\n']);
    expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM scope_rules WHERE origin = 'program'`)).toEqual([
      { n: 0 },
    ]);
  });

  it('webhooks add, list and remove manage webhooks; list never prints a secret', async () => {
    await cli('domains', 'add', 'hooked.com', '--platform', 'hackerone');
    const secret = 'a-secret-of-24-characters';
    const added = await runCliAs(
      ['webhooks', 'add', 'https://hooks.example.net/in', '--domain', 'hooked.com', '--secret'],
      `${secret}\n`,
    );
    expect(added.code).toBe(0);
    const id = lastLine(added);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const slack = await cli(
      'webhooks',
      'add',
      'https://hooks.slack.example/services/T1/B2/chat-secret',
      '--platform',
      'bugcrowd',
      '--format',
      'slack',
      '--types',
      'takeover_candidate, http_changed,takeover_candidate',
    );
    expect(slack.code).toBe(0);
    expect(
      await t.dataSource.query(`SELECT url, platforms, format, secret, types FROM webhooks ORDER BY created_at`),
    ).toEqual([
      { url: 'https://hooks.example.net/in', platforms: null, format: 'json', secret, types: ['host_new'] },
      {
        url: 'https://hooks.slack.example/services/T1/B2/chat-secret',
        platforms: ['bugcrowd'],
        format: 'slack',
        secret: null,
        types: ['http_changed', 'takeover_candidate'],
      },
    ]);

    const list = await cli('webhooks', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toMatch(/hooked\.com\s+json\s+host_new\s+yes/);
    expect(list.stdout).toMatch(
      /https:\/\/hooks\.slack\.example\/services\/…\s+platform bugcrowd\s+slack\s+http_changed,takeover_candidate\s+no/,
    );
    expect(list.stdout).not.toContain('chat-secret');
    expect(list.stdout + list.stderr).not.toContain(secret);

    for (const [args, message] of [
      [['ftp://x.example/'], /must be http or https/],
      [['not a url'], /is not a URL/],
      [['https://user:pw@x.example/'], /must not hold a user name or password/],
      [['https://x.example/', '--format', 'xml'], /format must be one of json, slack, discord/],
      [['https://x.example/', '--platform', 'nope'], /unknown platform "nope"/],
      [['https://x.example/', '--domain', 'untracked.com'], /untracked\.com is not a tracked domain/],
      [['https://x.example/', '--scope', 'some'], /scope must be one of in, out, all/],
      [['https://x.example/', '--resolving-only'], /resolving only needs a digest/],
      [['https://x.example/', '--types', 'dns_changed,everything'], /types must be a list of host_new, /],
    ] as const) {
      const refused = await cli('webhooks', 'add', ...args);
      expect({ args, code: refused.code }).toEqual({ args, code: 1 });
      expect(refused.stderr).toMatch(message);
    }

    expect((await cli('webhooks', 'remove', id)).code).toBe(0);
    expect((await cli('webhooks', 'remove', 'https://hooks.slack.example/services/T1/B2/chat-secret')).code).toBe(0);
    const unknown = await cli('webhooks', 'remove', id);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no webhook with the id or URL/);
    expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM webhooks`)).toEqual([{ n: 0 }]);
    // Sixteen CLI processes one after another (one at a time: the embedded database takes eight connections),
    // each 1–4 s on a loaded machine: past the default 60 s in CI.
  }, 180_000);

  it('webhooks add --secret reads the secret from standard input, and refuses one given as an argument', async () => {
    for (const [args, message] of [
      [
        ['https://x.example/', '--secret', 'a-secret-in-the-argv'],
        /--secret takes no value: give the secret on standard input/,
      ],
      [['--secret', 'a-secret-in-the-argv', 'https://x.example/'], /--secret takes no value/],
      [['https://x.example/', '--secret'], /give the secret on standard input \(its first line\)/],
    ] as const) {
      const refused = await cli('webhooks', 'add', ...args);
      expect({ args, code: refused.code }).toEqual({ args, code: 1 });
      expect(refused.stderr).toMatch(message);
      expect(refused.stderr).not.toContain('a-secret-in-the-argv');
    }
    const short = await runCliAs(['webhooks', 'add', 'https://x.example/', '--secret'], 'short\n');
    expect([short.code, short.stderr]).toEqual([1, expect.stringMatching(/at least 16 characters/)]);
    expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM webhooks`)).toEqual([{ n: 0 }]);
  });

  it('prints its help and version without opening a database, or making one where none is', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'sm-cli-help-'));
    try {
      const dir = join(empty, 'data');
      for (const args of [['--help'], ['help'], ['domains', '--help'], ['tokens', 'create', '-h']]) {
        const r = await runCli(args, { DATA_DIR: dir, LOG_LEVEL: 'error' });
        expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
        expect(r.stdout).toMatch(/^Usage: subdomain-monitor /);
      }
      const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
      for (const flag of ['--version', '-V']) {
        const r = await runCli([flag], { DATA_DIR: dir, LOG_LEVEL: 'error' });
        expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
          code: 0,
          stdout: `${version}\n`,
          stderr: '',
        });
      }
      // An unreachable server is never asked either.
      const server = await runCli(['--help'], { DATABASE_URL: 'postgres://127.0.0.1:1/none', LOG_LEVEL: 'error' });
      expect(server.code).toBe(0);
      expect(existsSync(dir)).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('runs a command on its database from its one file, loading no package a second time from node_modules', async () => {
    // What the bundle requires at run time goes through Node's CommonJS loader, and so into require.cache.
    const dir = mkdtempSync(join(tmpdir(), 'sm-cli-loaded-'));
    try {
      const preload = join(dir, 'loaded.cjs');
      const out = join(dir, 'loaded.txt');
      writeFileSync(
        preload,
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, Object.keys(require.cache).join('\\n')));`,
      );
      const database = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATA_DIR: on.dataDir };
      const r = await runCli(['domains', 'list'], {
        ...database,
        LOG_LEVEL: 'error',
        NODE_OPTIONS: `--require=${preload}`,
      });
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(readFileSync(out, 'utf8').split('\n')).toEqual([preload]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sources prints what each scan source did, and refuses a bad window or an untracked root', async () => {
    await t.dataSource.query(`INSERT INTO domains (domain, platform_slug) VALUES ('sources-cli.test', 'self')`);
    await t.dataSource.query(
      `INSERT INTO scans (domain_id, trigger, status, started_at, finished_at, error, source_stats)
       SELECT id, 'cron', s.status, now() - interval '1 hour', now(), s.error, s.stats::jsonb
         FROM domains, (VALUES ('success', NULL, '{"crtsh": {"ms": 800, "names": 300, "seen": 20, "new": 5}}'),
                               ('error', 'crtsh: HTTP 502 (after 3 attempts)', '{}')) s(status, error, stats)
        WHERE domain = 'sources-cli.test'`,
    );
    const r = await cli('sources', '--domain', 'sources-cli.test', '--days', '7');
    expect(r.code).toBe(0);
    const [head, crtsh] = r.stdout.trim().split('\n');
    expect(head.split(/\s+/)).toEqual([
      'SOURCE',
      'CONFIGURED',
      'OK',
      'FAILED',
      'MS_MEDIAN',
      'MS_P95',
      'NAMES',
      'SEEN',
      'NEW',
      'FLOODING',
      'LAST_FAILURE',
    ]);
    expect(crtsh.split(/\s+/).slice(0, 10)).toEqual(['crtsh', 'yes', '1', '1', '800', '800', '300', '20', '5', 'yes']);
    expect(crtsh).toMatch(/ crtsh: HTTP 502 \(after 3 attempts\)$/);
    for (const args of [
      ['--days', '0'],
      ['--days', 'week'],
      ['--domain', 'unknown.test'],
      ['--domain', 'a..test'],
    ]) {
      const refused = await cli('sources', ...args);
      expect({ args, code: refused.code, lines: refused.stderr.trim().split('\n').length }).toEqual({
        args,
        code: 1,
        lines: 1,
      });
    }
  });

  it('migrate reports an up-to-date schema', async () => {
    const r = await cli('migrate');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Database schema is up to date.\n');
  });

  // Control characters a terminal acts on: C0 (ESC, BEL), C1 (CSI), DEL, bidirectional overrides and isolates.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

  it('refuses control characters in the names it is given, in one line, writing nothing', async () => {
    for (const [args, stdin] of [
      [['tokens', 'create', '--name', 'evil\x1b[2Jkey'], ''],
      [['tokens', 'create', '--name', 'invoice\u202egpj.exe'], ''],
      [['domains', 'add', 'ctl.com', '--platform', 'self', '--program', 'Acme\x1b]0;pwned\x07'], ''],
      [['users', 'create', '--email', 'ctl@example.com', '--name', 'Eve\u009b31m'], 'long enough pw\n'],
    ] as const) {
      const r = await runCliAs([...args], stdin);
      expect({ args, code: r.code, lines: r.stderr.trim().split('\n').length }).toEqual({ args, code: 1, lines: 1 });
      expect(r.stderr).toMatch(/must not contain control characters/);
      expect(r.stderr).not.toMatch(RAW_CONTROL);
    }
    expect(
      await t.dataSource.query(`SELECT name FROM api_keys WHERE name LIKE 'evil%' OR name LIKE 'invoice%'`),
    ).toEqual([]);
    expect(await t.dataSource.query(`SELECT 1 FROM domains WHERE domain = 'ctl.com'`)).toEqual([]);
    expect(await t.dataSource.query(`SELECT 1 FROM users WHERE email = 'ctl@example.com'`)).toEqual([]);
  });

  it('prints names escaped: a control character stored earlier never reaches the terminal raw', async () => {
    const evil = 'x\x1b[2J\u202e\x07\u009b';
    const shown = 'x\\x1b[2J\\u202e\\x07\\x9b';
    await t.dataSource.query(
      `INSERT INTO api_keys (name, user_id, key_hash, key_hint, scopes) VALUES ($1, 'legacy', 'legacy-hash', 'sm_l', '{read}')`,
      [evil],
    );
    await t.dataSource.query(`INSERT INTO domains (domain, platform_slug, program) VALUES ('legacy.com', 'self', $1)`, [
      evil,
    ]);
    await t.dataSource.query(`INSERT INTO users (email, name, password_hash) VALUES ('legacy@example.com', $1, 'x')`, [
      evil,
    ]);
    try {
      for (const list of [
        ['tokens', 'list'],
        ['domains', 'list'],
        ['users', 'list'],
      ]) {
        const r = await cli(...list);
        expect({ list, code: r.code }).toEqual({ list, code: 0 });
        expect(r.stdout).toContain(shown);
        expect(r.stdout).not.toMatch(RAW_CONTROL);
      }
      // An error that quotes what it was given is escaped too.
      const refused = await cli('tokens', 'revoke', 'nothing\x1b[31m');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe('error: no active key with id or name "nothing\\x1b[31m"\n');
    } finally {
      await t.dataSource.query(`DELETE FROM api_keys WHERE user_id = 'legacy'`);
      await t.dataSource.query(`DELETE FROM domains WHERE domain = 'legacy.com'`);
      await t.dataSource.query(`DELETE FROM users WHERE email = 'legacy@example.com'`);
    }
  });
});
