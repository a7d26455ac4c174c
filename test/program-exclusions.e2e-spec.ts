import { ImportRepository } from '../src/import/import.repository.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, expectError, startTestApp } from './fixtures/test-app.js';
import { crtshWorker, scanThroughApi } from './fixtures/worker.js';
import { HostStore } from '../src/hosts/store/host-store.js';

type Host = { host: string; in_scope: boolean };
type Rule = { id: string; origin: string; pattern: string; program_rule: string | null };

/**
 * Exclusion rules of a whole program: a rule of the program applies to each of its root domains, those tracked
 * when it is added and those that join the program later (tracked under its name, or given it by an import), and
 * goes from all of them when it is removed. Hosts are recorded by real scans against a loopback crt.sh.
 */
describe('program exclusion rules', () => {
  let crt: LoopbackCrtsh;
  let t: TestApp;
  let read: Record<string, string>;
  let write: Record<string, string>;
  const PROGRAM = 'Acme Corp / Main';
  const hostsOf = (root: string) => [`www.${root}`, `staging1.${root}`, `staging2.${root}`, `api.${root}`];

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    t = await startTestApp(crtshWorker(crt));
    read = bearer(await t.token(['read']));
    write = bearer(await t.token(['read', 'write']));
    await seedDomain(t, { domain: 'acme-one.test', platform: 'hackerone', program: PROGRAM });
    await seedDomain(t, { domain: 'acme-two.test', platform: 'hackerone', program: PROGRAM });
    await seedDomain(t, { domain: 'other-program.test', platform: 'hackerone', program: 'Other' });
    await seedDomain(t, { domain: 'acme-elsewhere.test', platform: 'bugcrowd', program: PROGRAM });
    for (const root of ['acme-one.test', 'acme-two.test', 'other-program.test', 'acme-elsewhere.test']) {
      await scanThroughApi(t, crt, write, root, hostsOf(root));
    }
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
  });

  const outOfScope = async (root: string) => {
    const res = await t.get(`/domains/${root}/subdomains?scope=out`, read);
    expect(res.status).toBe(200);
    return (res.body.data as Host[]).map((h) => h.host).sort();
  };
  const domainRules = async (root: string) =>
    ((await t.get(`/domains/${root}/exclusions`, read)).body.data as Rule[]).map((r) => [r.origin, r.pattern]);
  const addRule = (body: object) => t.post('/platforms/hackerone/exclusions', body, write);
  const removeRule = (id: string) => t.request('DELETE', `/platforms/hackerone/exclusions/${id}`, { headers: write });

  it("applies a program's rule to each of its root domains on the platform, and to no other", async () => {
    const res = await addRule({ program: PROGRAM, pattern: 're:^staging\\d+\\.' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^\d+$/),
        program: PROGRAM,
        kind: 'regex',
        pattern: 're:^staging\\d+\\.',
        domains: 2,
        created_at: expect.any(String),
      },
      meta: { hosts_moved: 4 },
    });
    expect(await outOfScope('acme-one.test')).toEqual(['staging1.acme-one.test', 'staging2.acme-one.test']);
    expect(await outOfScope('acme-two.test')).toEqual(['staging1.acme-two.test', 'staging2.acme-two.test']);
    expect(await outOfScope('other-program.test')).toEqual([]);
    expect(await outOfScope('acme-elsewhere.test')).toEqual([]); // the same name on another platform
    expect((await addRule({ program: PROGRAM, pattern: 're:^staging\\d+\\.' })).body.meta).toEqual({ hosts_moved: 0 });

    // The domain's own list shows the program's rule, which is removed with the program, not the domain.
    const [copy] = (await t.get('/domains/acme-one.test/exclusions', read)).body.data as Rule[];
    expect(copy).toMatchObject({ origin: 'program', pattern: 're:^staging\\d+\\.', program_rule: res.body.data.id });
    const refused = await t.request('DELETE', `/domains/acme-one.test/exclusions/${copy.id}`, { headers: write });
    expectError(refused, 404, 'not_found');
    expect(refused.body.error.message).toContain(`program's rule ${res.body.data.id}`);

    // A manual rule of the same pattern is the domain's own, and can go without the program's.
    expect((await t.post('/domains/acme-one.test/exclusions', { pattern: 're:^staging\\d+\\.' }, write)).status).toBe(
      201,
    );
    expect(await domainRules('acme-one.test')).toEqual([
      ['program', 're:^staging\\d+\\.'],
      ['manual', 're:^staging\\d+\\.'],
    ]);

    const listed = await t.get(`/platforms/hackerone/exclusions?program=${encodeURIComponent(PROGRAM)}`, read);
    expect(listed.body.data).toEqual([res.body.data]);
    expect((await t.get('/platforms/hackerone/exclusions?program=Other', read)).body.data).toEqual([]);
    expect((await t.get('/platforms/bugcrowd/exclusions', read)).body.data).toEqual([]);

    const gone = await removeRule(res.body.data.id);
    expect([gone.status, gone.body.data.pattern, gone.body.meta]).toEqual([
      200,
      're:^staging\\d+\\.',
      { hosts_moved: 2 },
    ]);
    expect(await outOfScope('acme-one.test')).toEqual(['staging1.acme-one.test', 'staging2.acme-one.test']); // manual
    expect(await outOfScope('acme-two.test')).toEqual([]);
    expect(await domainRules('acme-two.test')).toEqual([]);
    expectError(await removeRule(res.body.data.id), 404, 'not_found');
  });

  it('reaches root domains that join the program later, tracked or imported, and the hosts they record', async () => {
    const rule = await addRule({ program: PROGRAM, pattern: 'www.*.test' });
    // www.*.test: * inside a label, so www.acme-one.test and www.acme-two.test, not www.x.acme-one.test.
    expect([rule.status, rule.body.meta]).toEqual([201, { hosts_moved: 2 }]);

    // Tracked under the program's name: the rule is there before its first host is.
    await seedDomain(t, { domain: 'acme-three.test', platform: 'hackerone', program: PROGRAM });
    expect(await domainRules('acme-three.test')).toEqual([['program', 'www.*.test']]);
    await scanThroughApi(t, crt, write, 'acme-three.test', hostsOf('acme-three.test'));
    expect(await outOfScope('acme-three.test')).toEqual(['www.acme-three.test']);
    expect(rule.body.data.id).toBe(
      ((await t.get('/platforms/hackerone/exclusions', read)).body.data as Rule[]).find(
        (r) => r.pattern === 'www.*.test',
      )?.id,
    );

    // Tracked with no program, then given the program's name by an import: its stored hosts are re-evaluated.
    await seedDomain(t, { domain: 'acme-four.test', platform: 'hackerone' });
    await scanThroughApi(t, crt, write, 'acme-four.test', hostsOf('acme-four.test'));
    expect(await outOfScope('acme-four.test')).toEqual([]);
    const result = await new ImportRepository(t.dataSource, new HostStore(t.dataSource)).apply(
      [{ domain: 'acme-four.test', platform: 'hackerone', program: PROGRAM, handle: 'acme' }],
      null,
      null,
      false,
    );
    expect(result.rules).toEqual({ added: 0, removed: 0, moved: 1 });
    expect(await outOfScope('acme-four.test')).toEqual(['www.acme-four.test']);
    const events = await t.get('/events?domain=acme-four.test&type=scope_changed', read);
    expect((events.body.data as Host[]).map((e) => e.host)).toEqual(['www.acme-four.test']);

    const listed = (await t.get('/platforms/hackerone/exclusions', read)).body.data as { domains: number }[];
    expect(listed.map((r) => r.domains)).toEqual([4]);
    expect((await removeRule(rule.body.data.id)).body.meta).toEqual({ hosts_moved: 4 });
  });

  it('refuses what it cannot keep with the contract’s errors, and changes need the write scope', async () => {
    for (const body of [
      {},
      { program: PROGRAM },
      { pattern: 'a.test' },
      { program: 7, pattern: 'a.test' },
      { program: '', pattern: 'a.test' },
      { program: 'x'.repeat(201), pattern: 'a.test' },
      { program: 'a\u0000b', pattern: 'a.test' },
      { program: PROGRAM, pattern: 're:(a)\\1' },
      { program: PROGRAM, pattern: 'not a host' },
    ]) {
      const res = await addRule(body);
      expect([body, res.status, res.body.error?.code]).toEqual([body, 400, 'invalid_body']);
    }
    const misspelt = await addRule({ program: 'Acme Crop', pattern: 'a.test' });
    expectError(misspelt, 404, 'not_found');
    expect(misspelt.body.error.message).toContain('Acme Crop');
    expectError(
      await t.post('/platforms/nope/exclusions', { program: PROGRAM, pattern: 'a.test' }, write),
      404,
      'unknown_platform',
    );
    expectError(await t.get('/platforms/nope/exclusions', read), 404, 'unknown_platform');
    const readOnly = await t.post('/platforms/hackerone/exclusions', { program: PROGRAM, pattern: 'b.test' }, read);
    expectError(readOnly, 403, 'insufficient_scope');
    expectError(await removeRule('x1'), 400, 'invalid_id');
    expectError(await t.get(`/platforms/hackerone/exclusions?program=${'x'.repeat(201)}`, read), 400, 'invalid_query');
  });

  it('refuses a pattern PostgreSQL cannot compile, so that the program’s domains are scanned as before', async () => {
    const refused = ['re:a{256}', 're:a{2,1000}', 're:\\x{41}', 're:[^\\x00-\\x{10FFFF}]', 're:[\\d-z]'];
    for (const pattern of refused) {
      const res = await addRule({ program: PROGRAM, pattern });
      expectError(res, 400, 'invalid_body');
      expect(res.body.error.message).toMatch(/^a regular expression may /);
    }
    const kept = (await t.get('/platforms/hackerone/exclusions', read)).body.data as Rule[];
    expect(kept.filter((r) => refused.includes(r.pattern))).toEqual([]);
    await scanThroughApi(t, crt, write, 'acme-one.test', [...hostsOf('acme-one.test'), 'late.acme-one.test']);
    const hosts = (await t.get('/domains/acme-one.test/subdomains?scope=all', read)).body.data as Host[];
    expect(hosts.map((h) => h.host)).toContain('late.acme-one.test');
  });
});
