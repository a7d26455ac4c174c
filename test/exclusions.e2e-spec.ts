import { Logger } from '@nestjs/common';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { SseClient } from './fixtures/sse.js';
import { waitFor } from './fixtures/wait.js';
import { Receiver } from './fixtures/webhook-receiver.js';
import { WebhooksService } from '../src/notify/webhooks.service.js';
import { HostStore } from '../src/hosts/store/host-store.js';
import { ProgramRulesRepository } from '../src/scope/program-rules.repository.js';
import { ScopeRulesRepository, syncImportedRules } from '../src/scope/scope-rules.repository.js';
import { StoredRulesCheck } from '../src/scope/stored-rules.check.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { crtshWorker, scanThroughApi } from './fixtures/worker.js';

type Host = { host: string; in_scope: boolean };

/**
 * Exclusion rules of a root domain through the API, on hosts a real scan (a loopback crt.sh) recorded: each
 * pattern form, the re-evaluation of stored hosts when a rule comes or goes, new hosts recorded out of scope, and
 * the scope filter of lists, search and feeds.
 */
describe('exclusion rules', () => {
  let crt: LoopbackCrtsh;
  let receiver: Receiver;
  let t: TestApp;
  let read: Record<string, string>;
  let write: Record<string, string>;
  const NAMES = [
    'www.scope.test',
    'api.scope.test',
    'a.dev.scope.test',
    'b.c.dev.scope.test',
    'dev.scope.test',
    'dev-1.scope.test',
    'staging1.scope.test',
    'staging22.scope.test',
    'stagingx.scope.test',
  ];

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    receiver = await new Receiver().start();
    t = await startTestApp({ ...crtshWorker(crt), CT_WEBHOOK_GATHER_SECONDS: 0 });
    read = bearer(await t.token(['read']));
    write = bearer(await t.token(['read', 'write']));
    await seedDomain(t, { domain: 'scope.test', platform: 'hackerone' });
    await scanThroughApi(t, crt, write, 'scope.test', NAMES);
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
    await receiver.close();
  });

  const hosts = async (path: string) => {
    const res = await t.get(path, read);
    expect(res.status).toBe(200);
    return res.body as { data: Host[]; meta: { total?: number } };
  };
  const names = (body: { data: Host[] }) => body.data.map((h) => h.host).sort();
  const add = (pattern: string) => t.post('/domains/scope.test/exclusions', { pattern }, write);
  const remove = (id: string) => t.request('DELETE', `/domains/scope.test/exclusions/${id}`, { headers: write });
  const outOfScope = async () => names(await hosts('/domains/scope.test/subdomains?scope=out'));

  it('moves the hosts each form names out of scope at once, and back when the rule goes', async () => {
    const wildcard = await add('*.DEV.scope.test');
    expect(wildcard.status).toBe(201);
    expect(wildcard.body).toEqual({
      data: {
        id: expect.stringMatching(/^\d+$/),
        kind: 'wildcard',
        pattern: '*.dev.scope.test',
        origin: 'manual',
        program_rule: null,
        created_at: expect.any(String),
      },
      meta: { hosts_moved: 2 },
    });
    expect(await outOfScope()).toEqual(['a.dev.scope.test', 'b.c.dev.scope.test']);

    const inLabel = await add('dev-*.scope.test');
    const exact = await add('www.scope.test');
    const regex = await add('re:^staging\\d+\\.');
    expect([inLabel, exact, regex].map((r) => [r.status, r.body.data.kind, r.body.meta.hosts_moved])).toEqual([
      [201, 'wildcard', 1],
      [201, 'host', 1],
      [201, 'regex', 2],
    ]);
    expect((await add('www.scope.test')).body.meta).toEqual({ hosts_moved: 0 }); // the same rule again
    expect(await outOfScope()).toEqual([
      'a.dev.scope.test',
      'b.c.dev.scope.test',
      'dev-1.scope.test',
      'staging1.scope.test',
      'staging22.scope.test',
      'www.scope.test',
    ]);

    const rules = (await t.get('/domains/scope.test/exclusions', read)).body.data as { id: string; pattern: string }[];
    expect(rules.map((r) => r.pattern)).toEqual([
      '*.dev.scope.test',
      'dev-*.scope.test',
      'www.scope.test',
      're:^staging\\d+\\.',
    ]);

    const gone = await remove(regex.body.data.id);
    expect([gone.status, gone.body.data.pattern, gone.body.meta]).toEqual([
      200,
      're:^staging\\d+\\.',
      { hosts_moved: 2 },
    ]);
    expect(await outOfScope()).not.toContain('staging1.scope.test');

    // Each move is a scope_changed event, with both sides.
    const events = (await t.get('/events?domain=scope.test&type=scope_changed&limit=100', read)).body.data as {
      host: string;
      before: { in_scope: boolean };
      after: { in_scope: boolean };
    }[];
    expect(events.filter((e) => e.host === 'staging1.scope.test').map((e) => [e.before, e.after])).toEqual([
      [{ in_scope: true }, { in_scope: false }],
      [{ in_scope: false }, { in_scope: true }],
    ]);
    expect(events).toHaveLength(8);
  });

  it('shows in-scope hosts by default on lists, search and feeds, and the others with scope=out or all', async () => {
    const all = await hosts('/domains/scope.test/subdomains?scope=all');
    expect(all.meta.total).toBe(NAMES.length);
    const inScope = await hosts('/domains/scope.test/subdomains');
    expect(names(inScope)).toEqual([
      'api.scope.test',
      'dev.scope.test',
      'staging1.scope.test',
      'staging22.scope.test',
      'stagingx.scope.test',
    ]);
    expect(inScope.meta.total).toBe(5);
    expect(inScope.data.every((h) => h.in_scope)).toBe(true);
    expect((await hosts('/domains/scope.test/subdomains?scope=out')).data.every((h) => !h.in_scope)).toBe(true);
    expect(names(await hosts('/subdomains/search?q=dev'))).toEqual(['dev.scope.test']);
    expect(names(await hosts('/subdomains/search?q=dev&scope=all'))).toEqual([
      'a.dev.scope.test',
      'b.c.dev.scope.test',
      'dev-1.scope.test',
      'dev.scope.test',
    ]);
    expect(names(await hosts('/subdomains/new')).filter((h) => h.endsWith('.scope.test'))).toEqual(names(inScope));
    expect(names(await hosts('/domains/scope.test/subdomains/new'))).toEqual(names(inScope));
    expect(names(await hosts('/platforms/hackerone/subdomains/new?scope=out'))).toEqual(await outOfScope());
    expectError(await t.get('/subdomains/new?scope=maybe', read), 400, 'invalid_query');
  });

  it('records a new host a rule names out of scope', async () => {
    await scanThroughApi(t, crt, write, 'scope.test', [...NAMES, 'new.dev.scope.test', 'fresh.scope.test']);
    const recorded = (await hosts('/domains/scope.test/subdomains?scope=all&limit=100')).data;
    expect(
      recorded
        .filter((h) => ['new.dev.scope.test', 'fresh.scope.test'].includes(h.host))
        .map((h) => [h.host, h.in_scope])
        .sort(),
    ).toEqual([
      ['fresh.scope.test', true],
      ['new.dev.scope.test', false],
    ]);
    const one = (await t.get('/hosts/new.dev.scope.test', read)).body.data;
    expect(one).toMatchObject({ host: 'new.dev.scope.test', in_scope: false });
  });

  it('keeps out-of-scope hosts out of the bulk feed, the export, /events, the stream and webhooks by default', async () => {
    const ours = (list: string[]) => list.filter((h) => h.endsWith('.scope.test')).sort();
    const bulk = async (query: string) =>
      ours(names(await hosts(`/platforms/hackerone/subdomains?limit=10000&active=false${query}`)));
    const inScope = names(await hosts('/domains/scope.test/subdomains?limit=100'));
    const excluded = await outOfScope();
    expect(await bulk('')).toEqual(inScope);
    expect(await bulk('&scope=out')).toEqual(excluded);
    const exported = async (query: string) => {
      const res = await t.get(`/export?domain=scope.test&format=txt${query}`, read);
      expect(res.status).toBe(200);
      return res.text.split('\n').filter(Boolean).sort();
    };
    expect(await exported('')).toEqual(inScope);
    expect(await exported('&host_scope=out')).toEqual(excluded);
    expect(await exported('&host_scope=all&scope=all')).toEqual([...inScope, ...excluded].sort());
    const arrivals = async (query: string) =>
      ((await t.get(`/events?domain=scope.test&type=host_new&limit=1000${query}`, read)).body.data as Host[])
        .map((e) => e.host)
        .sort();
    expect(await arrivals('')).toEqual(inScope);
    expect(await arrivals('&scope=all')).toEqual([...inScope, ...excluded].sort());

    await t.app.get(WebhooksService).add({ url: `${receiver.url}/scope`, domains: 'scope.test' });
    const url = `${t.baseUrl}/api/v1/subdomains/stream?domain=scope.test`;
    const shown = await SseClient.open(url, read);
    const hidden = await SseClient.open(`${url}&scope=out`, read);
    try {
      const seen = (await hosts('/domains/scope.test/subdomains?scope=all&limit=1000')).data.map((h) => h.host);
      await scanThroughApi(t, crt, write, 'scope.test', [...seen, 'x.dev.scope.test', 'y.scope.test']);
      await hidden.waitForEvents(1);
      await shown.waitForEvents(1);
      expect(hidden.hosts().map((h) => h.host)).toEqual(['x.dev.scope.test']);
      // Both arrived in one commit: a stream that showed x would have shown it with y.
      expect(shown.hosts().map((h) => h.host)).toEqual(['y.scope.test']);
    } finally {
      await shown.close();
      await hidden.close();
    }
    const [delivery] = await waitFor('the delivery', () =>
      receiver.at('/scope').length > 0 ? receiver.at('/scope') : undefined,
    );
    const body = JSON.parse(delivery.body) as { new_count: number; hosts: { host: string }[] };
    expect([body.new_count, body.hosts.map((h) => h.host)]).toEqual([1, ['y.scope.test']]);
  });

  it('refuses bad patterns with the contract’s errors, and changes need the write scope', async () => {
    for (const pattern of ['re:(a)\\1', 're:x(?=y)', '', 'not a host', '*.elsewhere.test', `re:${'a'.repeat(300)}`]) {
      const res = await add(pattern);
      expect([pattern, res.status, res.body.error?.code]).toEqual([pattern, 400, 'invalid_body']);
    }
    expectError(await t.post('/domains/scope.test/exclusions', {}, write), 400, 'invalid_body');
    expectError(await t.post('/domains/scope.test/exclusions', { pattern: 7 }, write), 400, 'invalid_body');
    expectError(
      await t.post('/domains/scope.test/exclusions', { pattern: 'a.scope.test' }, read),
      403,
      'insufficient_scope',
    );
    expectError(
      await t.post('/domains/unknown.test/exclusions', { pattern: 'a.unknown.test' }, write),
      404,
      'not_found',
    );
    expectError(await t.get('/domains/unknown.test/exclusions', read), 404, 'not_found');
    expectError(await remove('12x'), 400, 'invalid_id');
    expectError(await remove('999999'), 404, 'not_found');
    const wrongVerb = await t.get('/domains/scope.test/exclusions/1', read);
    expectError(wrongVerb, 405, 'method_not_allowed');
    expect(wrongVerb.headers.get('allow')).toBe('DELETE');
  });

  it('matches a pattern that would make a backtracking engine run for ever in linear time', async () => {
    await seedDomain(t, { domain: 'slow.test', platform: 'self' });
    await scanThroughApi(t, crt, write, 'slow.test', [`${'a'.repeat(60)}.slow.test`, 'b.slow.test']);
    const res = await t.post('/domains/slow.test/exclusions', { pattern: 're:^(a|aa)+$' }, write);
    expect([res.status, res.body.meta]).toEqual([201, { hosts_moved: 0 }]);
    // A webhook of scope_changed hears of the move.
    await t.app
      .get(WebhooksService)
      .add({ url: `${receiver.url}/moves`, domains: 'slow.test', types: 'scope_changed' });
    const nested = await t.post('/domains/slow.test/exclusions', { pattern: 're:^(a+)+\\.' }, write);
    expect([nested.status, nested.body.meta]).toEqual([201, { hosts_moved: 1 }]);
    const [moved] = await waitFor('the delivery', () =>
      receiver.at('/moves').length > 0 ? receiver.at('/moves') : undefined,
    );
    const body = JSON.parse(moved.body) as { event: string; events: { type: string; host: string; after: object }[] };
    expect([body.event, body.events.map((e) => [e.type, e.host, e.after])]).toEqual([
      'host_events',
      [['scope_changed', `${'a'.repeat(60)}.slow.test`, { in_scope: false }]],
    ]);
  });

  // RE2 reads each of these; PostgreSQL, which matches hosts with the rules, refuses it (or reads it otherwise).
  const REFUSED = ['re:a{256}', 're:a{2,1000}', 're:\\x{41}', 're:[^\\x00-\\x{10FFFF}]', 're:[\\d-z]', 're:\\x41b'];
  it.each(REFUSED.map((pattern, i) => [pattern, `no-hosts-${i}.test`]))(
    'refuses %j as a bad pattern on a domain with hosts and on one without (%s); scans and rules go on',
    async (pattern, empty) => {
      await seedDomain(t, { domain: empty, platform: 'self' });
      for (const domain of [empty, 'scope.test']) {
        const res = await t.post(`/domains/${domain}/exclusions`, { pattern }, write);
        expectError(res, 400, 'invalid_body');
        expect(res.body.error.message).toMatch(/^a regular expression may /);
      }
      expectError(
        await t.post('/platforms/hackerone/exclusions', { program: 'Nobody', pattern }, write),
        400,
        'invalid_body',
      );
      expect((await t.get(`/domains/${empty}/exclusions`, read)).body.data).toEqual([]);
      // The domain's scans, and the rules of another domain, go on.
      await scanThroughApi(t, crt, write, empty, [`a.${empty}`]);
      const plain = await add('plain.scope.test');
      expect([plain.status, plain.body.data.pattern]).toEqual([201, 'plain.scope.test']);
      expect((await remove(plain.body.data.id)).status).toBe(200);
    },
  );

  it('compiles each rule in PostgreSQL before it is kept, whatever path it comes by', async () => {
    const [{ id }] = await t.dataSource.query(`SELECT id FROM domains WHERE domain = 'scope.test'`);
    const bad = { kind: 'regex' as const, pattern: 're:a{256}', regex: 'a{256}' };
    const rules = t.app.get(ScopeRulesRepository);
    const refusal = /^re:a\{256\} cannot be compiled by PostgreSQL: invalid repetition count\(s\)$/;
    await expect(rules.add(id, [bad])).rejects.toMatchObject({
      code: 'invalid_body',
      message: expect.stringMatching(refusal),
    });
    await expect(t.app.get(ProgramRulesRepository).add('hackerone', 'Nobody', [bad])).rejects.toMatchObject({
      code: 'invalid_body',
    });
    await expect(
      t.app
        .get(HostStore)
        .transaction((w) =>
          syncImportedRules(
            w,
            [{ domain: 'scope.test', platform: 'hackerone' }],
            [{ domain: 'scope.test', platform: 'hackerone', ...bad }],
          ),
        ),
    ).rejects.toMatchObject({ code: 'invalid_body', message: expect.stringMatching(refusal) });
    const kept = await t.dataSource.query(
      `SELECT pattern FROM scope_rules WHERE regex = 'a{256}' UNION ALL SELECT pattern FROM program_scope_rules WHERE regex = 'a{256}'`,
    );
    expect(kept).toEqual([]);
  });
});

/**
 * Rules stored before patterns were compiled as they came, or written to the database by hand: at start each one
 * PostgreSQL cannot compile is named in a warning, and from then on it matches nothing, so that its domain's scans
 * and the other domains' rules go on.
 */
describe('stored rules PostgreSQL cannot compile', () => {
  let crt: LoopbackCrtsh;
  let first: TestApp;
  let t: TestApp | undefined;
  const warnings: string[] = [];

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    first = await startTestApp(crtshWorker(crt));
    await first.dataSource.query(
      `INSERT INTO program_scope_rules (platform_slug, program, kind, pattern, regex)
       VALUES ('bugcrowd', 'Broken Co', 'regex', 're:\\x{41}', '\\x{41}')`,
    );
    // The program's rule is copied to the domain as it joins; the domain's own rule is written by hand.
    await seedDomain(first, { domain: 'broken.test', platform: 'bugcrowd', program: 'Broken Co' });
    await seedDomain(first, { domain: 'fine.test', platform: 'self' });
    await first.dataSource.query(
      `INSERT INTO scope_rules (domain_id, kind, pattern, regex)
       SELECT id, 'regex', 're:a{256}', 'a{256}' FROM domains WHERE domain = 'broken.test'`,
    );
  });
  afterAll(async () => {
    await t?.close();
    await first.close();
    await crt.close();
  });

  it('is named in a warning at start, and matches nothing from then on: scans and other rules go on', async () => {
    const warn = Logger.prototype.warn;
    Logger.prototype.warn = function (this: Logger, message: unknown, ...rest: unknown[]) {
      warnings.push(String(message));
      return warn.call(this, message, ...rest);
    };
    try {
      t = await startTestApp(crtshWorker(crt), { shareDatabaseOf: first });
    } finally {
      Logger.prototype.warn = warn;
    }
    const [own] = await t.dataSource.query(`SELECT id::text FROM scope_rules WHERE pattern = 're:a{256}'`);
    const [program] = await t.dataSource.query(`SELECT id::text FROM program_scope_rules WHERE program = 'Broken Co'`);
    expect(warnings.filter((w) => w.includes('cannot be compiled by PostgreSQL')).sort()).toEqual(
      [
        `exclusion rule ${own.id} of broken.test, re:a{256}, cannot be compiled by PostgreSQL (invalid repetition count(s)): ` +
          `it excludes no host until it is removed (DELETE /api/v1/domains/broken.test/exclusions/${own.id}) and ` +
          'replaced by a pattern the service accepts',
        `exclusion rule ${program.id} of bugcrowd program "Broken Co", re:\\x{41}, cannot be compiled by PostgreSQL ` +
          `(invalid escape \\ sequence): it excludes no host until it is removed ` +
          `(DELETE /api/v1/platforms/bugcrowd/exclusions/${program.id}) and replaced by a pattern the service accepts`,
      ].sort(),
    );
    const headers = bearer(await t.token(['read', 'write']));
    await scanThroughApi(t, crt, headers, 'broken.test', ['www.broken.test', 'api.broken.test']);
    const hosts = (await t.get('/domains/broken.test/subdomains?scope=all', headers)).body.data as Host[];
    expect(hosts.map((h) => [h.host, h.in_scope]).sort()).toEqual([
      ['api.broken.test', true],
      ['www.broken.test', true],
    ]);
    const plain = await t.post('/domains/fine.test/exclusions', { pattern: 'www.fine.test' }, headers);
    expect(plain.status).toBe(201);
    // The rules are still listed, as given, and flagged again at the next start until they are removed.
    const listed = (await t.get('/domains/broken.test/exclusions', headers)).body.data as { pattern: string }[];
    expect(listed.map((r) => r.pattern).sort()).toEqual(['re:\\x{41}', 're:a{256}']);
    expect((await t.app.get(StoredRulesCheck).check()).map((f) => f.rule.pattern).sort()).toEqual([
      're:\\x{41}',
      're:a{256}',
    ]);
    expect((await t.request('DELETE', `/domains/broken.test/exclusions/${own.id}`, { headers })).status).toBe(200);
    expect((await t.app.get(StoredRulesCheck).check()).map((f) => f.rule.pattern)).toEqual(['re:\\x{41}']);
  });
});
