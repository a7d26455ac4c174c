import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliResult, runCli } from './fixtures/cli.js';
import { HostileHttp } from './fixtures/hostile-http.js';
import { addHosts } from './fixtures/data.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

const FIXTURES = new URL('../../shared/fixtures/scope/', import.meta.url).pathname;
const fixture = (name: string) => join(FIXTURES, name);

/** Program sync from the real public scope lists in ../shared/fixtures/scope, through the operator CLI. */
describe('domains import', () => {
  let t: TestApp;
  let dir: string;
  let cli: (...args: string[]) => Promise<CliResult>;
  let fetchCli: (...args: string[]) => Promise<CliResult>;
  let web: HostileHttp;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sm-import-'));
    t = await startTestApp({}, { dataDir: join(dir, 'data') });
    web = await new HostileHttp().start();
    const env = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATA_DIR: join(dir, 'data') };
    cli = (...args) => runCli(args, { ...env, LOG_LEVEL: 'error' });
    fetchCli = (...args) => runCli(args, { ...env, LOG_LEVEL: 'error', FETCH_MAX_MB: '1' });
  });
  afterAll(async () => {
    await t.close();
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  });

  type Row = {
    domain: string;
    platform_slug: string;
    program: string | null;
    program_handle: string | null;
    enabled: boolean;
  };
  const snapshot = () =>
    t.dataSource.query<Row[]>(
      `SELECT domain, platform_slug, program, program_handle, enabled FROM domains ORDER BY domain`,
    );
  const importOk = async (...args: string[]) => {
    const r = await cli('domains', 'import', ...args);
    expect([
      r.code,
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith('error'))
        .join(''),
    ]).toEqual([0, '']);
    return r.stdout.split('\n');
  };

  it('imports HackerOne: *.auvik.com becomes auvik.com, app ids are skipped, names and handles kept', async () => {
    const out = await importOk(fixture('hackerone_data.json'), '--format', 'bounty-targets');
    expect(out.slice(0, 4)).toEqual([
      `${fixture('hackerone_data.json')}: 2 programs, 16 targets → 2 root domains (hackerone)`,
      'added 2, kept 0, disabled 0, under another platform 0',
      'skipped 2 targets: mobile_app 2',
      'out of scope: 21 targets → 21 exclusion rules; rules added 21, removed 0; hosts moved 0',
    ]);
    expect(await snapshot()).toEqual([
      { domain: 'auvik.com', platform_slug: 'hackerone', program: 'Auvik', program_handle: 'auvik', enabled: true },
      {
        domain: 'gemini.com',
        platform_slug: 'hackerone',
        program: 'Gemini',
        program_handle: 'gemini_trust_co_vdp',
        enabled: true,
      },
    ]);
  });

  it.each([
    [
      'bugcrowd_data.json',
      '260 programs, 3037 targets → 604 root domains (bugcrowd)',
      'added 604, kept 0, disabled 0, under another platform 0',
      'skipped 1617 targets: app_store_listing 706, free_text 355, ip_address 190, mobile_app 270, no_registrable_domain 2, not_web 50, source_code 44',
    ],
    [
      'intigriti_data.json',
      '135 programs, 1622 targets → 572 root domains (intigriti)',
      'added 572, kept 0, disabled 0, under another platform 0',
      'skipped 336 targets: free_text 127, ip_address 39, mobile_app 131, no_registrable_domain 5, not_web 6, source_code 24, third_party_document 4',
    ],
    [
      'yeswehack_data.json',
      '63 programs, 672 targets → 302 root domains (yeswehack)',
      'added 302, kept 0, disabled 0, under another platform 0',
      'skipped 144 targets: free_text 38, mobile_app 102, source_code 4',
    ],
  ])('imports %s with the platform taken from the file name', async (file, parsed, written, skipped) => {
    const out = await importOk(fixture(file), '--format', 'bounty-targets');
    expect(out.slice(0, 3)).toEqual([`${fixture(file)}: ${parsed}`, written, skipped]);
  });

  it('makes exclusion rules of the real out-of-scope entries, and a later import of the list replaces them', async () => {
    const source = fixture('hackerone_data.json');
    const programs = JSON.parse(readFileSync(source, 'utf8')) as {
      name: string;
      targets: { out_of_scope: { asset_identifier: string }[] };
    }[];
    const auvikOut = programs.find((p) => p.name === 'Auvik')!.targets.out_of_scope.map((t) => t.asset_identifier);
    // The same list with Auvik's out-of-scope entries gone, and a free-text entry of its own.
    const trimmed = join(mkdtempSync(join(dir, 'oos-')), 'hackerone_data.json');
    writeFileSync(
      trimmed,
      JSON.stringify(
        programs.map((p) =>
          p.name === 'Auvik'
            ? { ...p, targets: { ...p.targets, out_of_scope: [{ asset_type: 'OTHER', asset_identifier: 'Staging' }] } }
            : p,
        ),
      ),
    );
    await importOk(trimmed, '--format', 'bounty-targets');
    const [auvik] = await t.dataSource.query(`SELECT id, domain FROM domains WHERE domain = 'auvik.com'`);
    await addHosts(t, auvik, ['www.auvik.com', 'auth.auvik.com', 'a.my.auvik.com', 'go.auvik.com', 'new.auvik.com']);
    const manual = await cli('domains', 'exclude', 'add', 'auvik.com', 'new.auvik.com');
    expect(manual.code).toBe(0);
    const read = bearer(await t.token(['read']));
    const outOfScope = async () =>
      ((await t.get('/domains/auvik.com/subdomains?scope=out', read)).body.data as { host: string }[])
        .map((h) => h.host)
        .sort();
    const rules = () =>
      t.dataSource.query<{ pattern: string; origin: string }[]>(
        `SELECT r.pattern, r.origin FROM scope_rules r JOIN domains d ON d.id = r.domain_id
          WHERE d.domain = 'auvik.com' ORDER BY r.origin, r.pattern`,
      );
    expect(await outOfScope()).toEqual(['new.auvik.com']);

    const out = await importOk(source, '--format', 'bounty-targets');
    expect(out[3]).toBe('out of scope: 21 targets → 21 exclusion rules; rules added 9, removed 0; hosts moved 3');
    expect(await rules()).toEqual([
      ...[...auvikOut].sort().map((pattern) => ({ pattern, origin: 'import' })),
      { pattern: 'new.auvik.com', origin: 'manual' },
    ]);
    expect(await outOfScope()).toEqual(['a.my.auvik.com', 'auth.auvik.com', 'go.auvik.com', 'new.auvik.com']);

    // The list without them again: the imported rules go, the operator's stays, the hosts come back.
    const again = await importOk(trimmed, '--format', 'bounty-targets');
    expect(again[3]).toBe(
      'out of scope: 13 targets → 12 exclusion rules; rules added 0, removed 9; hosts moved 3; no rule from free_text 1',
    );
    expect(await rules()).toEqual([{ pattern: 'new.auvik.com', origin: 'manual' }]);
    expect(await outOfScope()).toEqual(['new.auvik.com']);
    const moves = await t.dataSource.query<{ host: string; n: number }[]>(
      `SELECT h.host, count(*)::int AS n FROM host_events e JOIN hosts h ON h.id = e.host_id
        WHERE e.type = 'scope_changed' AND h.domain_id = $1 GROUP BY h.host ORDER BY h.host`,
      [auvik.id],
    );
    expect(moves).toEqual([
      { host: 'a.my.auvik.com', n: 2 },
      { host: 'auth.auvik.com', n: 2 },
      { host: 'go.auvik.com', n: 2 },
      { host: 'new.auvik.com', n: 1 },
    ]);
    await importOk(source, '--format', 'bounty-targets'); // as the file says, for the tests after this one
  });

  it('keeps the program names, reduces URLs and wildcards, and never imports a store or a hosting suffix', async () => {
    const rows = await snapshot();
    const byDomain = new Map(rows.map((r) => [r.domain, r]));
    expect(rows).toHaveLength(2 + 604 + 572 + 302);
    expect(byDomain.get('coindesk.com')).toMatchObject({ platform_slug: 'bugcrowd' });
    expect(byDomain.get('gesundheitsverbund.at')).toMatchObject({ platform_slug: 'bugcrowd' });
    expect(byDomain.get('wien.gv.at')).toMatchObject({ platform_slug: 'bugcrowd' });
    expect(byDomain.get('aikido.dev')).toMatchObject({
      platform_slug: 'intigriti',
      program_handle: expect.stringContaining('/'),
    });
    expect(byDomain.get('outscale.com')).toMatchObject({ platform_slug: 'yeswehack' });
    for (const absent of ['google.com', 'microsoft.com', 'apple.com', 'github.com', 'amazonaws.com', 'herokuapp.com']) {
      expect([absent, byDomain.has(absent)]).toEqual([absent, false]);
    }
    expect(rows.filter((r) => r.domain.endsWith('.execute-api.eu-west-1.amazonaws.com')).length).toBeGreaterThan(0);
  });

  it('changes nothing when the same files are imported again', async () => {
    const before = await snapshot();
    for (const file of ['hackerone_data.json', 'bugcrowd_data.json', 'intigriti_data.json', 'yeswehack_data.json']) {
      const out = await importOk(fixture(file), '--format', 'bounty-targets');
      expect(out[1]).toMatch(/^added 0, kept \d+, disabled 0, under another platform 0$/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('--prune disables exactly the domains of a program that left scope, and --dry-run writes nothing', async () => {
    const programs = JSON.parse(readFileSync(fixture('hackerone_data.json'), 'utf8')) as { name: string }[];
    const trimmed = join(dir, 'hackerone_data.json');
    writeFileSync(trimmed, JSON.stringify(programs.filter((p) => p.name !== 'Gemini')));
    const before = await snapshot();

    const dry = await importOk(trimmed, '--format', 'bounty-targets', '--prune', '--dry-run');
    expect(dry.slice(0, 3)).toEqual([
      'dry run: nothing was written',
      `${trimmed}: 1 programs, 1 targets → 1 root domains (hackerone)`,
      'added 0, kept 1, disabled 1, under another platform 0',
    ]);
    expect(await snapshot()).toEqual(before);

    const out = await importOk(trimmed, '--format', 'bounty-targets', '--prune');
    expect(out).toContain('disabled gemini.com');
    const after = await snapshot();
    const changed = after.filter((row, i) => JSON.stringify(row) !== JSON.stringify(before[i]));
    expect(changed).toEqual([{ ...before.find((r) => r.domain === 'gemini.com'), enabled: false }]);
    expect(after.filter((r) => r.platform_slug !== 'hackerone').every((r) => r.enabled)).toBe(true); // other platforms untouched
  });

  it('imports the chaos list, deriving each program platform from its URL', async () => {
    const out = await importOk(fixture('chaos_data.json'), '--format', 'chaos');
    expect(out.slice(0, 3)).toEqual([
      `${fixture('chaos_data.json')}: 802 programs, 4110 targets → 4103 root domains (self, hackerone, bugcrowd, yeswehack, intigriti)`,
      'added 3803, kept 222, disabled 0, under another platform 78',
      'skipped 7 targets: no_registrable_domain 7',
    ]);
    const rows = new Map((await snapshot()).map((r) => [r.domain, r]));
    expect(rows.get('4chan.org')).toMatchObject({ platform_slug: 'self', program: '4chan' });
    expect(rows.get('jitsi.org')).toMatchObject({ platform_slug: 'hackerone', program: '8x8' });
    const again = await importOk(fixture('chaos_data.json'), '--format', 'chaos');
    expect(again[1]).toBe('added 0, kept 4025, disabled 0, under another platform 78');
  });

  it('imports a txt list into a platform (self by default), from a file or a URL', async () => {
    const list = join(dir, 'mine.txt');
    writeFileSync(
      list,
      '# my own programs\nexample-own.com\n\n*.api.example-own.com\nhttps://shop.other-own.co.uk/path\n',
    );
    expect((await importOk(list, '--format', 'txt')).slice(0, 2)).toEqual([
      `${list}: 3 targets → 2 root domains (self)`,
      'added 2, kept 0, disabled 0, under another platform 0',
    ]);
    const server = createServer((req, res) => res.end('served-own.net\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/list.txt`;
      expect((await importOk(url, '--format', 'txt', '--platform', 'intigriti'))[1]).toBe(
        'added 1, kept 0, disabled 0, under another platform 0',
      );
      expect((await snapshot()).find((r) => r.domain === 'served-own.net')?.platform_slug).toBe('intigriti');
    } finally {
      server.close();
    }
  });

  it('skips the lines of a txt list that are no domain, counted by reason as other formats do, and imports the rest', async () => {
    const list = join(dir, 'mixed.txt');
    writeFileSync(list, 'mixed-one.com\n10.0.0.0/8\nnot a domain at all\nmixed-two.net\n');
    expect((await importOk(list, '--format', 'txt')).slice(0, 3)).toEqual([
      `${list}: 4 targets → 2 root domains (self)`,
      'added 2, kept 0, disabled 0, under another platform 0',
      'skipped 2 targets: free_text 1, ip_address 1',
    ]);
    const rows = await snapshot();
    expect(rows.filter((r) => r.domain.startsWith('mixed-')).map((r) => [r.domain, r.platform_slug])).toEqual([
      ['mixed-one.com', 'self'],
      ['mixed-two.net', 'self'],
    ]);
  });

  it.each([
    [
      'broken.json',
      '[{"name": "x", "targets": {"in_scope": [',
      ['--format', 'bounty-targets', '--platform', 'hackerone'],
      /not valid JSON: it ends too early$/,
    ],
    [
      'bugcrowd_data.json',
      '[{"name": "Acme", "targets": {"in_scope": [{"type": "website", "target": "a.com"}]}}, {"name": "Broken", "targets": {}}]',
      ['--format', 'bounty-targets'],
      /program 2 \("Broken"\): targets\.in_scope is not a list/,
    ],
    ['list.txt', '# nothing here\n10.0.0.0/8\n', ['--format', 'txt'], /no line is a domain \(line 2: ip_address\)$/],
    [
      'scope.json',
      '[]',
      ['--format', 'bounty-targets'],
      /cannot tell the platform from the file name; give --platform/,
    ],
    [
      'chaos.json',
      '{"programs": [{"name": "A", "url": "https://hackerone.com/a", "domains": "a.com"}]}',
      ['--format', 'chaos'],
      /program 1 \("A"\): domains is not a list/,
    ],
    ['x.json', '[]', ['--format', 'yaml'], /--format must be one of bounty-targets, chaos, txt/],
    ['y.txt', 'a.com', ['--format', 'txt', '--platform', 'nowhere'], /unknown platform "nowhere"/],
  ])('refuses a malformed %s with one clear line, writing nothing', async (name, content, flags, message) => {
    const bad = mkdtempSync(join(dir, 'bad-'));
    const file = join(bad, name);
    writeFileSync(file, content);
    const before = await snapshot();
    const r = await cli('domains', 'import', file, ...flags);
    expect(r.code).toBe(1);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('error:')),
    ).toEqual([expect.stringMatching(message)]);
    expect(await snapshot()).toEqual(before);
  });

  const SHADOW = 'root:$6$s4ltS4lt$Hunter2HashHunter2Hash:19700:0:99999:7:::\ndaemon:*:19700:0:99999:7:::\n';
  it.each([
    ['--format txt', 'shadow', SHADOW, ['--format', 'txt'], /no line is a domain \(line 1: free_text\)$/],
    ['--format chaos', 'shadow', SHADOW, ['--format', 'chaos'], /not valid JSON$/],
    [
      '--format bounty-targets',
      'settings.json',
      '{"db": {"password": "Hunter2Hash"},\n "token": "s4ltS4lt" "x"}',
      ['--format', 'bounty-targets', '--platform', 'hackerone'],
      /not valid JSON at line 2, column 22$/,
    ],
    [
      '--format bounty-targets',
      'users.json',
      '[{"name": "s4ltS4lt Hunter2Hash"}]',
      ['--format', 'bounty-targets', '--platform', 'hackerone'],
      /program 1: targets\.in_scope is not a list$/,
    ],
  ])(
    'names the place, never the content, of a file that is no scope list (%s, %s)',
    async (_format, name, content, flags, message) => {
      const file = join(mkdtempSync(join(dir, 'other-')), name);
      writeFileSync(file, content);
      const r = await cli('domains', 'import', file, ...flags);
      expect([r.code, r.stderr.split('\n').filter((l) => l.startsWith('error:'))]).toEqual([
        1,
        [expect.stringMatching(message)],
      ]);
      for (const secret of ['root:', 's4ltS4lt', 'Hunter2Hash']) expect(r.stdout + r.stderr).not.toContain(secret);
    },
  );

  it.each([
    [
      'a chunked body past FETCH_MAX_MB, without Content-Length',
      'chunked',
      /the body is larger than 1 MiB \(FETCH_MAX_MB\)/,
    ],
    ['a gzip body whose Content-Length is far below what it inflates to', 'gzip-bomb', /the body is larger than 1 MiB/],
    ['a redirect to a file: URL', 'to-file', /redirected to a file: URL; only http and https redirects are followed/],
    ['a redirect to an ftp: URL', 'to-ftp', /redirected to a ftp: URL; only http and https redirects are followed/],
    ['a redirect loop', 'loop', /more than 3 redirects/],
  ])('refuses a URL that answers %s, writing nothing', async (_what, path, message) => {
    const before = await snapshot();
    const r = await fetchCli('domains', 'import', `${web.url}/${path}`, '--format', 'txt');
    expect([r.code, r.stderr.split('\n').filter((l) => l.startsWith('error:'))]).toEqual([
      1,
      [expect.stringMatching(message)],
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('follows a redirect loop at most 3 times', () => {
    expect(web.hits.get('/loop')).toBe(4);
  });

  it('follows a redirect to another http URL', async () => {
    web.list = 'redirected-own.net\n';
    expect((await importOk(`${web.url}/moved`, '--format', 'txt'))[1]).toBe(
      'added 1, kept 0, disabled 0, under another platform 0',
    );
  });

  it('refuses a file that does not exist', async () => {
    const r = await cli('domains', 'import', join(dir, 'missing.json'), '--format', 'chaos');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot read .*missing\.json: ENOENT/);
  });

  it('strips control characters from imported program names and handles, and domains list prints none raw', async () => {
    const file = join(mkdtempSync(join(dir, 'ctl-')), 'hackerone_data.json');
    const program = (name: string, handle: string, host: string) => ({
      name,
      handle,
      targets: { in_scope: [{ asset_type: 'URL', asset_identifier: host }] },
    });
    writeFileSync(
      file,
      JSON.stringify([
        program('Evil\x1b]0;owned\x07 Corp\u202e', 'ev\x00il\u2066', '*.evilcorp-ctl.com'),
        program('\x1b\u009b\x7f', 'only-controls', 'blank-ctl.com'),
      ]),
    );
    await importOk(file, '--format', 'bounty-targets');
    const rows = (await snapshot()).filter((r) => r.domain.endsWith('-ctl.com'));
    expect(rows).toEqual([
      {
        domain: 'blank-ctl.com',
        platform_slug: 'hackerone',
        program: null,
        program_handle: 'only-controls',
        enabled: true,
      },
      {
        domain: 'evilcorp-ctl.com',
        platform_slug: 'hackerone',
        program: 'Evil]0;owned Corp',
        program_handle: 'evil',
        enabled: true,
      },
    ]);
    const list = await cli('domains', 'list');
    expect(list.stdout).toMatch(/evilcorp-ctl\.com\s+hackerone\s+Evil\]0;owned Corp\s/);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(list.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  });
});
