import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { ScopeSyncService } from '../src/import/scope-sync.service.js';
import { answerHostile } from './fixtures/hostile-http.js';
import { type TestApp, startTestApp } from './fixtures/test-app.js';
import { NEVER } from './fixtures/worker.js';

const FIXTURES = new URL('../../shared/fixtures/scope/', import.meta.url).pathname;

describe('scheduled scope sync', () => {
  let t: TestApp;
  let server: Server;
  let hackerone = readFileSync(`${FIXTURES}hackerone_data.json`, 'utf8');

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/hackerone_data.json') res.writeHead(200, { 'content-type': 'application/json' }).end(hackerone);
      else if (req.url === '/mine.txt') res.writeHead(200).end('synced-own.org\n');
      else if (req.url === '/huge.txt') answerHostile('chunked', req, res);
      else if (req.url === '/moved.txt') answerHostile('to-ftp', req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    t = await startTestApp({
      WORKER: 'on',
      WORKER_CRON: NEVER,
      SYNC_CRON: NEVER,
      SYNC_PRUNE: 'on',
      FETCH_MAX_MB: 1,
      SYNC_SOURCES: [
        `bounty-targets:${base}/hackerone_data.json`,
        `txt:${base}/mine.txt`,
        `chaos:${base}/missing.json`,
        `txt:${base}/huge.txt`,
        `txt:${base}/moved.txt`,
      ],
    });
  });
  afterAll(async () => {
    await t.close();
    server.close();
  });

  const domains = () =>
    t.dataSource.query<{ domain: string; platform_slug: string; enabled: boolean }[]>(
      `SELECT domain, platform_slug, enabled FROM domains ORDER BY domain`,
    );

  it('imports every source with the rules of domains import; a failing source (too large, redirected away from http) does not stop the others', async () => {
    const outcomes = await t.app.get(ScopeSyncService).sync();
    expect(outcomes?.map((o) => [o.summary?.added.length ?? null, o.error ?? null])).toEqual([
      [2, null],
      [1, null],
      [null, expect.stringMatching(/HTTP 404/)],
      [null, expect.stringMatching(/huge\.txt: the body is larger than 1 MiB \(FETCH_MAX_MB\)$/)],
      [
        null,
        expect.stringMatching(/moved\.txt: redirected to a ftp: URL; only http and https redirects are followed$/),
      ],
    ]);
    expect(await domains()).toEqual([
      { domain: 'auvik.com', platform_slug: 'hackerone', enabled: true },
      { domain: 'gemini.com', platform_slug: 'hackerone', enabled: true },
      { domain: 'synced-own.org', platform_slug: 'self', enabled: true },
    ]);
  });

  it('prunes, with SYNC_PRUNE on, a program that left the list', async () => {
    hackerone = JSON.stringify((JSON.parse(hackerone) as { name: string }[]).filter((p) => p.name !== 'Auvik'));
    await t.app.get(ScopeSyncService).sync();
    expect((await domains()).find((d) => d.domain === 'auvik.com')?.enabled).toBe(false);
    expect((await domains()).filter((d) => d.enabled).map((d) => d.domain)).toEqual(['gemini.com', 'synced-own.org']);
  });
});
