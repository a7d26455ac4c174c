import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoDataRepository } from '../src/demo/demo-data.repository.js';
import { DemoDataService } from '../src/demo/demo-data.service.js';
import { runCli } from './fixtures/cli.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';

/** The data set relative to the moment it was seeded (every age counts back from the newest scan). */
const FINGERPRINT = `
  SELECT md5(string_agg(concat_ws('|', d.domain, d.platform_slug, d.program, h.host, h.is_active,
                 extract(epoch FROM (SELECT max(last_scanned_at) FROM domains) - h.first_seen_at)::bigint), ',' ORDER BY h.host)) AS digest,
         count(*)::int AS hosts
    FROM hosts h JOIN domains d ON d.id = h.domain_id`;

describe('seed-demo', () => {
  const apps: TestApp[] = [];
  const seeded = async (seed: string, hosts = 20_000, domains = 50, days = 30) => {
    const t = await startTestApp();
    apps.push(t);
    await new DemoDataService(new DemoDataRepository(t.dataSource), t.env).seed(
      { domains, hosts, days, seed },
      () => undefined,
    );
    return t;
  };
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('gives the same data for the same seed, and other data for another', async () => {
    const [a, b, c] = [await seeded('one'), await seeded('one'), await seeded('two')];
    const [fa] = await a.dataSource.query(FINGERPRINT);
    const [fb] = await b.dataSource.query(FINGERPRINT);
    const [fc] = await c.dataSource.query(FINGERPRINT);
    expect(fa.hosts).toBe(20_000);
    expect(fb).toEqual(fa);
    expect(fc.digest).not.toBe(fa.digest);
  }, 120_000);

  it('is realistic and consistent: five platforms, newest days densest, a share inactive, counters and scans agreeing with the hosts', async () => {
    const t = apps[0];
    const auth = bearer(await t.token());
    const platforms = (await t.get('/platforms', auth)).body.data as {
      slug: string;
      domain_count: number;
      subdomain_count: number;
    }[];
    expect(platforms.every((p) => p.domain_count > 0)).toBe(true);
    expect(platforms.reduce((s, p) => s + p.subdomain_count, 0)).toBe(20_000);

    const [shape] = await t.dataSource.query(`
      SELECT count(*) FILTER (WHERE NOT is_active)::float8 / count(*) AS inactive_share,
             count(*) FILTER (WHERE first_seen_at >= now() - interval '3 days')::int AS newest_3_days,
             count(*) FILTER (WHERE first_seen_at < now() - interval '27 days')::int AS oldest_3_days,
             count(*) FILTER (WHERE first_seen_at < now() - interval '31 days')::int AS older_than_window
        FROM hosts`);
    expect(shape.inactive_share).toBeGreaterThan(0.05);
    expect(shape.inactive_share).toBeLessThan(0.12);
    expect(shape.newest_3_days).toBeGreaterThan(3 * shape.oldest_3_days);
    expect(shape.older_than_window).toBe(0);

    const [mismatch] = await t.dataSource.query(`
      SELECT count(*)::int AS n FROM domains d
       WHERE d.total_subdomains <> (SELECT count(*) FROM hosts h WHERE h.domain_id = d.id)
          OR d.active_subdomains <> (SELECT count(*) FROM hosts h WHERE h.domain_id = d.id AND h.is_active)
          OR d.new_subdomains_last_scan <> (SELECT s.new_count FROM scans s WHERE s.domain_id = d.id ORDER BY s.finished_at DESC LIMIT 1)
          OR d.last_scanned_at <> (SELECT max(s.finished_at) FROM scans s WHERE s.domain_id = d.id)`);
    expect(mismatch.n).toBe(0);
    const stats = (await t.get('/stats', auth)).body.data;
    const [exact] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM hosts WHERE first_seen_at >= now() - interval '7 days'`,
    );
    expect(Math.abs(stats.new.last_week - exact.n)).toBeLessThanOrEqual(2);
    expect((await t.get('/scans?limit=1', auth)).body.meta.total).toBe(50 * 7);
  });

  it('refuses a database that already has domains', async () => {
    const t = apps[0];
    await expect(
      new DemoDataService(new DemoDataRepository(t.dataSource), t.env).seed(
        { domains: 1, hosts: 1, days: 1, seed: 'x' },
        () => undefined,
      ),
    ).rejects.toThrow('seed-demo fills an empty database; this one tracks 50 domains');
  });

  it('runs from the CLI with progress on stderr and a summary on stdout', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sm-seed-'));
    try {
      const t = await startTestApp({}, { dataDir });
      apps.push(t);
      const env = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATA_DIR: dataDir };
      const ok = await runCli(['seed-demo', '--domains', '10', '--hosts', '5000', '--days', '7', '--seed', 'cli'], env);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/^seeded 10 domains and 5000 hosts in \d+\.\d s\n$/);
      expect(ok.stderr).toContain('seed-demo: 0/4 (0%) domains');
      expect(ok.stderr).toContain('seed-demo: 4/4 (100%) done');
      for (const [args, message] of [
        [['seed-demo', '--hosts', '5'], /--domains and --hosts are required/],
        [['seed-demo', '--domains', '0', '--hosts', '5'], /--domains must be an integer from 1/],
        [['seed-demo', '--domains', '2', '--hosts', 'many'], /--hosts must be an integer/],
        [['seed-demo', '--domains', '2', '--hosts', '5'], /fills an empty database; this one tracks 10 domains/],
      ] as const) {
        const bad = await runCli([...args], env);
        expect(bad.code).toBe(1);
        expect(bad.stderr).toMatch(message);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
