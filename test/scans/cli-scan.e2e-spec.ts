import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../fixtures/cli.js';
import { LoopbackCrtsh } from '../fixtures/crtsh-server.js';
import { seedDomain } from '../fixtures/data.js';
import { type TestApp, bearer, startTestApp } from '../fixtures/test-app.js';

describe('cli scan DOMAIN', () => {
  let t: TestApp;
  let crt: LoopbackCrtsh;
  let dataDir: string;
  let scan: (...args: string[]) => ReturnType<typeof runCli>;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    dataDir = mkdtempSync(join(tmpdir(), 'sm-cliscan-'));
    t = await startTestApp({}, { dataDir });
    const db = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATA_DIR: dataDir };
    scan = (...args) =>
      runCli(['scan', ...args], { ...db, CRTSH_URL: crt.url, SOURCE_ATTEMPTS: '1', LOG_LEVEL: 'error' });
  });
  afterAll(async () => {
    await t.close();
    await crt.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('scans in the foreground, reports progress on stderr and prints a summary', async () => {
    await seedDomain(t, { domain: 'cli.test', hosts: ['old.cli.test'] });
    crt.names.set('cli.test', ['a.cli.test', 'b.cli.test', 'junk@cli.test']);
    const r = await scan('cli.test');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^scan of cli\.test succeeded in \d+\.\d s: found 2, new 2, went inactive 1, active again 0, dropped 1\n$/,
    );
    expect(r.stderr).toContain('scan cli.test: 2/2 (100%) success');
    const scans = (await t.get('/scans?domain=cli.test', bearer(await t.token()))).body.data;
    expect(scans).toEqual([
      expect.objectContaining({ trigger: 'cli', status: 'success', new_count: 2, inactive_count: 1 }),
    ]);
  });

  it('exits 1 with one line when the source fails, recording the scan as error', async () => {
    crt.failures.set('cli.test', 1);
    const r = await scan('cli.test');
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^error: scan of cli\.test failed after \d+\.\d s: crtsh: HTTP 502 \(after 1 attempts\)$/,
    );
  });

  it.each([
    [['Bad.com'], /must be lowercase/],
    [['unknown.test'], /unknown\.test is not tracked/],
  ])('refuses %j', async (args, message) => {
    const r = await scan(...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});
