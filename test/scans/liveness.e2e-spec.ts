import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackCrtsh } from '../fixtures/crtsh-server.js';
import { seedDomain } from '../fixtures/data.js';
import { LoopbackDns } from '../fixtures/dns-server.js';
import { type TestApp, bearer, startTestApp } from '../fixtures/test-app.js';
import { NEVER, tickUntilIdle, worker } from '../fixtures/worker.js';

type Host = { host: string; first_seen_at: string; is_active: boolean; sources: string[] };

describe('liveness, the dns source and the command source', () => {
  let crt: LoopbackCrtsh;
  let dns: LoopbackDns;
  const dir = mkdtempSync(join(tmpdir(), 'sm-scan-'));

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    dns = await new LoopbackDns().start();
  });
  afterAll(async () => {
    await crt.close();
    await dns.close();
  });

  const base = () => ({
    WORKER: 'on' as const,
    WORKER_CRON: NEVER,
    CRTSH_URL: crt.url,
    DNS_SERVERS: [dns.address],
    DNS_TIMEOUT_MS: 500,
    SOURCE_ATTEMPTS: 1,
  });
  const hostsOf = async (t: TestApp, domain: string, auth: Record<string, string>) =>
    (await t.get(`/domains/${domain}/subdomains?limit=1000`, auth)).body.data as Host[];

  describe('with RESOLVE=on', () => {
    let t: TestApp;
    let auth: Record<string, string>;
    beforeAll(async () => {
      t = await startTestApp({ ...base(), RESOLVE: 'on', SCAN_SOURCES: ['crtsh'] });
      auth = bearer(await t.token(['read', 'write']));
      await seedDomain(t, { domain: 'live.test' });
    });
    afterAll(() => t.close());

    it('records only names that resolve; a host that stops resolving goes inactive and comes back active', async () => {
      crt.names.set('live.test', ['a.live.test', 'b.live.test', 'c.live.test']);
      dns.records.set('a.live.test', ['192.0.2.1']);
      dns.records.set('b.live.test', ['192.0.2.2']);
      expect(await tickUntilIdle(t)).toEqual([
        { status: 'success', found: 3, new: 2, reactivated: 0, inactive: 0, dropped: 0 },
      ]);
      const first = await hostsOf(t, 'live.test', auth);
      expect(first.map((h) => [h.host, h.is_active, h.sources]).sort()).toEqual([
        ['a.live.test', true, ['crtsh']],
        ['b.live.test', true, ['crtsh']],
      ]);

      dns.records.delete('b.live.test');
      await t.post('/scans', { domain: 'live.test' }, auth);
      expect(await tickUntilIdle(t)).toEqual([
        { status: 'success', found: 3, new: 0, reactivated: 0, inactive: 1, dropped: 0 },
      ]);
      expect((await hostsOf(t, 'live.test', auth)).find((h) => h.host === 'b.live.test')?.is_active).toBe(false);

      dns.records.set('b.live.test', ['192.0.2.2']);
      await t.post('/scans', { domain: 'live.test' }, auth);
      expect(await tickUntilIdle(t)).toEqual([
        { status: 'success', found: 3, new: 0, reactivated: 1, inactive: 0, dropped: 0 },
      ]);
      const again = await hostsOf(t, 'live.test', auth);
      const b = again.find((h) => h.host === 'b.live.test');
      expect(b?.is_active).toBe(true);
      expect(b?.first_seen_at).toBe(first.find((h) => h.host === 'b.live.test')?.first_seen_at);
    });

    it('keeps known hosts a source no longer lists while they resolve', async () => {
      crt.names.set('live.test', ['a.live.test']);
      await t.post('/scans', { domain: 'live.test' }, auth);
      expect(await tickUntilIdle(t)).toEqual([
        { status: 'success', found: 1, new: 0, reactivated: 0, inactive: 0, dropped: 0 },
      ]);
      expect((await hostsOf(t, 'live.test', auth)).every((h) => h.is_active)).toBe(true);
    });

    it('ends in error, marking nothing inactive, when the DNS servers stop answering', async () => {
      crt.names.set(
        'live.test',
        Array.from({ length: 20 }, (_, i) => `n${i}.live.test`),
      );
      dns.servfail = true;
      await t.post('/scans', { domain: 'live.test' }, auth);
      const [outcome] = await tickUntilIdle(t);
      dns.servfail = false;
      expect(outcome).toMatchObject({
        status: 'error',
        error: expect.stringMatching(/^resolve: \d+ of \d+ lookups failed/),
      });
      expect(
        (await hostsOf(t, 'live.test', auth))
          .filter((h) => h.is_active)
          .map((h) => h.host)
          .sort(),
      ).toEqual(['a.live.test', 'b.live.test']);
    });
  });

  describe('the dns source', () => {
    let t: TestApp;
    let auth: Record<string, string>;
    beforeAll(async () => {
      const wordlist = join(dir, 'words.txt');
      writeFileSync(wordlist, ['www', 'api', 'mail', 'vpn', 'nothing', '', '# not a label', 'WWW'].join('\n'));
      t = await startTestApp({ ...base(), SCAN_SOURCES: ['dns'], DNS_WORDLIST: wordlist });
      auth = bearer(await t.token(['read']));
    });
    afterAll(() => t.close());

    it('finds the words that resolve', async () => {
      await seedDomain(t, { domain: 'tame.test' });
      dns.records.set('www.tame.test', ['192.0.2.10']);
      dns.records.set('api.tame.test', ['192.0.2.11']);
      expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 2 }]);
      expect((await hostsOf(t, 'tame.test', auth)).map((h) => [h.host, h.sources]).sort()).toEqual([
        ['api.tame.test', ['dns']],
        ['www.tame.test', ['dns']],
      ]);
    });

    it('yields no false hosts in a wildcard zone, only names with answers of their own', async () => {
      await seedDomain(t, { domain: 'wild.test' });
      dns.wildcards.set('wild.test', ['198.51.100.7']);
      dns.records.set('mail.wild.test', ['192.0.2.20']);
      expect(await tickUntilIdle(t)).toMatchObject([{ status: 'success', new: 1 }]);
      expect((await hostsOf(t, 'wild.test', auth)).map((h) => h.host)).toEqual(['mail.wild.test']);
    });
  });

  describe('a large domain across ticks', () => {
    let t: TestApp;
    let auth: Record<string, string>;
    beforeAll(async () => {
      const wordlist = join(dir, 'many.txt');
      writeFileSync(wordlist, Array.from({ length: 1200 }, (_, i) => `w${i}`).join('\n'));
      // 1200 lookups at 4 in flight, each delayed by the server, cannot fit one 1-second slice.
      t = await startTestApp({
        ...base(),
        SCAN_SOURCES: ['dns'],
        DNS_WORDLIST: wordlist,
        DNS_CONCURRENCY: 4,
        SCAN_SLICE_SECONDS: 1,
      });
      auth = bearer(await t.token(['read']));
      await seedDomain(t, { domain: 'big.test' });
      for (let i = 0; i < 1200; i += 100) dns.records.set(`w${i}.big.test`, ['192.0.2.30']);
      dns.delayMs = 4;
    });
    afterAll(async () => {
      dns.delayMs = 0;
      await t.close();
    });

    it('goes on from its persisted progress at the next tick instead of holding one', async () => {
      const first = await worker(t).tick();
      expect(first.outcomes).toEqual([{ status: 'parked', progress: expect.objectContaining({ phase: 'discover' }) }]);
      const running = (await t.get('/scans?status=running', auth)).body.data;
      expect(running).toHaveLength(1);
      const rest = await tickUntilIdle(t, 60);
      expect(rest.at(-1)).toMatchObject({ status: 'success', new: 12 });
      const scans = (await t.get('/scans?domain=big.test', auth)).body.data;
      expect(scans.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([[running[0].id, 'success']]);
    });
  });

  describe('the command source', () => {
    it('runs the enumerator without a shell and records its hosts', async () => {
      const script = join(dir, 'enum.mjs');
      writeFileSync(
        script,
        `const d = process.argv[2]; console.log(['one.' + d, 'TWO.' + d + '.', 'x.other.org', '; rm -rf /'].join('\\n'));`,
      );
      const t = await startTestApp({
        ...base(),
        SCAN_SOURCES: ['command'],
        SCAN_COMMAND: `${process.execPath} ${script} {domain}`,
      });
      try {
        await seedDomain(t, { domain: 'cmd.test' });
        expect(await tickUntilIdle(t)).toEqual([
          { status: 'success', found: 2, new: 2, reactivated: 0, inactive: 0, dropped: 2 },
        ]);
        const auth = bearer(await t.token());
        expect((await hostsOf(t, 'cmd.test', auth)).map((h) => [h.host, h.sources]).sort()).toEqual([
          ['one.cmd.test', ['command']],
          ['two.cmd.test', ['command']],
        ]);
      } finally {
        await t.close();
      }
    });

    it('gives the command PATH, HOME, LANG, LC_ALL and the SCAN_COMMAND_ENV names only, never DATABASE_URL', async () => {
      const script = join(dir, 'env.mjs');
      const seen = join(dir, 'env.json');
      writeFileSync(
        script,
        `import { writeFileSync } from 'node:fs';
const [out, domain] = process.argv.slice(2);
writeFileSync(out, JSON.stringify(process.env));
console.log('www.' + domain);`,
      );
      const saved = { ...process.env };
      Object.assign(process.env, {
        DATABASE_URL: 'postgres://monitor:db-password-1@db.internal/monitor',
        SMTP_PASSWORD: 'smtp-password-2',
        ENUM_API_KEY: 'passed-on',
        LANG: 'C.UTF-8',
      });
      const t = await startTestApp({
        ...base(),
        SCAN_SOURCES: ['command'],
        SCAN_COMMAND: `${process.execPath} ${script} ${seen} {domain}`,
        SCAN_COMMAND_ENV: ['ENUM_API_KEY'],
      });
      try {
        await seedDomain(t, { domain: 'cmdenv.test' });
        expect(await tickUntilIdle(t)).toEqual([expect.objectContaining({ status: 'success', new: 1 })]);
        const env = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, string>;
        const expected = ['ENUM_API_KEY', 'HOME', 'LANG', 'LC_ALL', 'PATH'].filter((k) => process.env[k] !== undefined);
        expect(Object.keys(env).sort()).toEqual(expected);
        expect(env).toMatchObject({ ENUM_API_KEY: 'passed-on', LANG: 'C.UTF-8', PATH: process.env.PATH });
      } finally {
        await t.close();
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
        Object.assign(process.env, saved);
      }
    });

    it('keeps in scans.error only the last stderr line, without escapes, with a database password masked', async () => {
      const script = join(dir, 'noisy.mjs');
      writeFileSync(
        script,
        `process.stderr.write('connecting\\n' + '\\x1b[1;31mFATAL\\x1b[0m\\x1b]0;owned\\x07 no database at ' +
  'postgres://monitor:db-password-1@db.internal:5432/monitor ' + 'x'.repeat(300) + '\\n\\n');
process.exit(2);`,
      );
      const t = await startTestApp({
        ...base(),
        SCAN_SOURCES: ['command'],
        SCAN_COMMAND: `${process.execPath} ${script}`,
      });
      try {
        await seedDomain(t, { domain: 'noisy.test' });
        expect(await tickUntilIdle(t)).toEqual([expect.objectContaining({ status: 'error' })]);
        const auth = bearer(await t.token(['read']));
        const [listed] = (await t.get('/scans?domain=noisy.test', auth)).body.data as { id: string; error: string }[];
        const { error } = (await t.get(`/scans/${listed.id}`, auth)).body.data as { error: string };
        expect(listed.error).toBe(error);
        const summary = 'FATAL no database at postgres://***@db.internal:5432/monitor ';
        expect(error).toBe(
          `command: ${process.execPath} exited with 2: ${summary}${'x'.repeat(200 - summary.length - 1)}…`,
        );
        expect([...error].filter((c) => c < ' ' || c === '\x7f')).toEqual([]);
        expect(error).not.toMatch(/db-password-1|owned/);
      } finally {
        await t.close();
      }
    });

    it('fails the scan with a clear error when the command exits non-zero', async () => {
      const t = await startTestApp({
        ...base(),
        SCAN_SOURCES: ['command'],
        SCAN_COMMAND: `${process.execPath} -e process.exit(3)`,
      });
      try {
        await seedDomain(t, { domain: 'cmdfail.test' });
        const [outcome] = await tickUntilIdle(t);
        expect(outcome).toEqual({ status: 'error', error: expect.stringContaining('exited with 3') });
      } finally {
        await t.close();
      }
    });
  });
});
