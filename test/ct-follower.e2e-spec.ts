import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadEnvironment } from '../src/config/environment.js';
import { namedLogs } from '../src/ct/ct-log-spec.js';
import { WebhooksService } from '../src/notify/webhooks.service.js';
import {
  type BuiltServer,
  createProcessDatabase,
  type ProcessDatabase,
  startBuiltServer,
} from './fixtures/built-server.js';
import { runCli } from './fixtures/cli.js';
import { precertLeaf, tileLeaf, x509Leaf } from './fixtures/ct-certs.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { Receiver } from './fixtures/webhook-receiver.js';
import { LoopbackCtLog, LoopbackStaticLog } from './fixtures/ct-log.js';
import { seedDomain } from './fixtures/data.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { waitFor } from './fixtures/wait.js';
import { NEVER, crtshWorker, ctWorker, scanThroughApi } from './fixtures/worker.js';

interface HostRow {
  host: string;
  sources: string[];
}

interface CtLog {
  url: string;
  kind: 'rfc6962' | 'static';
  tree_size: number;
  position: number;
  lag: number;
  entries_total: number;
  hosts_total: number;
  last_error: string | null;
  last_error_at: string | null;
}

describe('following an RFC 6962 log', () => {
  let log: LoopbackCtLog;
  let crt: LoopbackCrtsh;
  let t: TestApp;
  let auth: Record<string, string>;
  let dataDir: string;
  /** A log nobody answers for (port 1 refuses connections): it must hold up nothing. */
  const DOWN = 'http://127.0.0.1:1/log';

  beforeAll(async () => {
    log = await new LoopbackCtLog().start();
    crt = await new LoopbackCrtsh().start();
    dataDir = mkdtempSync(join(tmpdir(), 'sm-ct-'));
    t = await startTestApp(
      {
        ...crtshWorker(crt),
        CT_LOGS: [DOWN, log.url],
        CT_START: 'start',
        CT_POLL_SECONDS: 1,
        CT_CONCURRENCY: 2,
        METRICS: 'on',
      },
      { dataDir },
    );
    auth = bearer(await t.token(['read']));
    await seedDomain(t, { domain: 'example.com', platform: 'hackerone' });
    await seedDomain(t, { domain: 'off.example.org', enabled: false });
  });

  afterAll(async () => {
    await t?.close();
    await log?.stop();
    await crt?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const logs = async (): Promise<CtLog[]> => (await t.get('/ct/logs', auth)).body.data as CtLog[];
  /** Waits until the follower has recorded every entry the log holds. */
  const caughtUp = () =>
    waitFor(
      `the follower to reach entry ${log.leaves.length}`,
      async () => {
        const state = (await logs()).find((l) => l.url === log.url);
        return state?.position === log.leaves.length ? state : undefined;
      },
      { ms: 30_000, context: () => JSON.stringify(log.requests.slice(-5)) },
    );
  const newHosts = async () =>
    ((await t.get('/subdomains/new?limit=100', auth)).body.data as { host: string }[]).map((h) => h.host).sort();

  it('records the hosts of certificates and precertificates under tracked roots, and nothing else', async () => {
    log.maxPerRequest = 3; // a log that answers fewer entries than asked: the follower goes on from what came
    log.append(
      x509Leaf({ cn: 'www.example.com', dns: ['www.example.com', 'API.Example.COM'] }),
      precertLeaf({ dns: ['*.cdn.example.com', 'evilexample.com', 'example.com'] }),
      x509Leaf({ cn: 'unrelated.net', dns: ['unrelated.net', 'mail.unrelated.net'], ips: [[192, 0, 2, 1]] }),
      precertLeaf({ dns: ['secret.off.example.org', 'bad-.example.com', '*.*.deep.example.com'] }),
      x509Leaf({ cn: 'only-cn.example.com' }),
      precertLeaf({ dns: ['www.example.com'] }), // a host already recorded is only marked seen
      x509Leaf({ dns: ['shop.example.com'] }),
    );
    const state = await caughtUp();
    expect(await newHosts()).toEqual([
      'api.example.com',
      'cdn.example.com',
      'deep.example.com',
      'only-cn.example.com',
      'shop.example.com',
      'www.example.com',
    ]);
    expect(state).toMatchObject({ tree_size: 7, position: 7, lag: 0, entries_total: 7, last_error: null });
    // Short pages: the first request asked for all seven, the log gave three, the next went on from the fourth.
    const served = log.requests.filter((r) => r.status === 200).map((r) => [r.start, r.end]);
    expect(served.slice(0, 3)).toEqual([
      [0, 6],
      [3, 6],
      [6, 6],
    ]);
    // The domain's counters and the rollups count each host once.
    const [counters] = await t.dataSource.query(
      `SELECT total_subdomains AS total, active_subdomains AS active FROM domains WHERE domain = 'example.com'`,
    );
    expect(counters).toEqual({ total: 6, active: 6 });
    const [{ n }] = await t.dataSource.query(`SELECT sum(n)::int AS n FROM domain_new_host_days`);
    expect(n).toBe(6);
  });

  it('waits as a 429 Retry-After asks, then goes on', async () => {
    log.busy = 2;
    log.retryAfter = '1';
    const before = log.requests.length;
    log.append(precertLeaf({ dns: ['after-429.example.com'] }));
    await caughtUp();
    expect(await newHosts()).toContain('after-429.example.com');
    const tried = log.requests.slice(before);
    expect(tried.map((r) => r.status)).toEqual([429, 429, 200]);
    expect(tried[1].at - tried[0].at).toBeGreaterThanOrEqual(950);
    expect(tried[2].at - tried[1].at).toBeGreaterThanOrEqual(950);
  });

  it("goes on while another log is down (showing that log's error), and past an entry it cannot read", async () => {
    const down = await waitFor('the down log to show its error', async () =>
      (await logs()).find((l) => l.url === DOWN && l.last_error !== null),
    );
    expect(down).toMatchObject({ tree_size: null, position: null, lag: null, entries_total: 0 });
    expect(down.last_error).toMatch(/fetch failed|ECONNREFUSED/);
    expect(Date.parse(down.last_error_at ?? '')).toBeLessThanOrEqual(Date.now());
    // An entry that is no certificate at all is passed over, not stuck on.
    log.append(Buffer.from('not a Merkle tree leaf'), x509Leaf({ dns: ['while-down.example.com'] }));
    await caughtUp();
    expect(await newHosts()).toContain('while-down.example.com');
  });

  it('goes on from where it was after its log restarts, and shows the error meanwhile', async () => {
    await caughtUp();
    await log.down();
    log.append(x509Leaf({ dns: ['after-restart.example.com'] }));
    const down = await waitFor('the restarting log to show its error', async () =>
      (await logs()).find((l) => l.url === log.url && l.last_error !== null),
    );
    expect(down.last_error).toMatch(/fetch failed|ECONNREFUSED/);
    const before = log.requests.length;
    await log.up();
    await caughtUp();
    expect(await newHosts()).toContain('after-restart.example.com');
    // It went on from its position: the first entries asked for after the restart are the new one.
    expect(log.requests.slice(before).find((r) => r.status === 200)?.start).toBe(log.leaves.length - 1);
  });

  it("counts entries read and names matched per log, and shows each log's lag, in the metrics", async () => {
    const state = await caughtUp();
    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const sample = (name: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name}{log="${log.url}"}`));
      return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    expect(sample('ct_entries_read_total')).toBe(state.entries_total);
    expect(sample('ct_names_matched_total')).toBe(state.hosts_total);
    expect(state.hosts_total).toBeGreaterThan(0);
    expect(sample('ct_log_lag_entries')).toBe(0);
    expect(text).not.toContain(`ct_log_lag_entries{log="${DOWN}"}`); // never read: no lag to tell
  });

  it("lists each host's sources: ct for the log's, with crtsh added by a scan that finds it too", async () => {
    await caughtUp();
    const sources = async () =>
      Object.fromEntries(
        ((await t.get('/domains/example.com/subdomains?limit=100', auth)).body.data as HostRow[]).map((h) => [
          h.host,
          h.sources,
        ]),
      );
    const before = await sources();
    expect(before['www.example.com']).toEqual(['ct']);
    expect(Object.values(before).every((s) => JSON.stringify(s) === '["ct"]')).toBe(true);
    const write = bearer(await t.token(['read', 'write']));
    await scanThroughApi(t, crt, write, 'example.com', ['www.example.com', 'crt-only.example.com']);
    const after = await sources();
    expect(after['www.example.com']).toEqual(['ct', 'crtsh']);
    expect(after['crt-only.example.com']).toEqual(['crtsh']);
    expect(after['shop.example.com']).toEqual(['ct']);
    // The feeds and search tell the same.
    const feed = (await t.get('/subdomains/new?limit=100', auth)).body.data as HostRow[];
    expect(feed.find((h) => h.host === 'crt-only.example.com')?.sources).toEqual(['crtsh']);
    const found = (await t.get('/subdomains/search?q=www.example', auth)).body.data as HostRow[];
    expect(found.map((h) => h.sources)).toEqual([['ct', 'crtsh']]);
  });

  it('shows the same state through `cli ct status`', async () => {
    const state = (await logs()).find((l) => l.url === log.url)!;
    const env = t.databaseUrl ? { DATABASE_URL: t.databaseUrl } : { DATA_DIR: dataDir };
    const out = await runCli(['ct', 'status'], { ...env, LOG_LEVEL: 'error' });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const [header, ...rows] = out.stdout.trim().split('\n');
    const row = rows.find((r) => r.startsWith(`${log.url} `))!;
    expect(rows).toHaveLength(2);
    expect(header.split(/\s+/).slice(0, 7)).toEqual([
      'URL',
      'KIND',
      'TREE_SIZE',
      'POSITION',
      'LAG',
      'ENTRIES',
      'HOSTS',
    ]);
    expect(row.split(/\s+/).slice(0, 7)).toEqual([
      log.url,
      'rfc6962',
      String(state.tree_size),
      String(state.position),
      '0',
      String(state.entries_total),
      String(state.hosts_total),
    ]);
  });
});

describe('following a static-ct-api log, and the logs of a log list', () => {
  let tiled: LoopbackStaticLog;
  let listedRfc: LoopbackCtLog;
  let retired: LoopbackCtLog;
  let t: TestApp;
  let auth: Record<string, string>;
  let dir: string;

  /** A log list in the v3 format Chrome publishes, as much of it as a follower reads. */
  const logList = () => ({
    version: '52.1',
    log_list_timestamp: '2026-11-20T12:55:02Z',
    operators: [
      {
        name: 'Loopback',
        email: ['ct@example.test'],
        logs: [
          {
            description: 'Loopback usable',
            log_id: Buffer.alloc(32, 1).toString('base64'),
            key: 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE',
            url: `${listedRfc.url}/`,
            mmd: 86400,
            state: { usable: { timestamp: '2026-01-01T00:00:00Z' } },
          },
          {
            description: 'Loopback retired',
            log_id: Buffer.alloc(32, 2).toString('base64'),
            url: `${retired.url}/`,
            mmd: 86400,
            state: { retired: { timestamp: '2026-06-01T00:00:00Z' } },
          },
          { description: 'no URL', state: { usable: {} } },
        ],
        tiled_logs: [
          {
            description: 'Loopback qualified, tiled',
            log_id: Buffer.alloc(32, 3).toString('base64'),
            submission_url: 'https://submit.example.test/',
            monitoring_url: `${tiled.url}/`,
            mmd: 60,
            state: { qualified: { timestamp: '2026-11-01T00:00:00Z' } },
          },
        ],
      },
    ],
  });

  beforeAll(async () => {
    tiled = await new LoopbackStaticLog().start();
    listedRfc = await new LoopbackCtLog().start();
    retired = await new LoopbackCtLog().start();
    retired.append(x509Leaf({ dns: ['retired.example.com'] }));
    dir = mkdtempSync(join(tmpdir(), 'sm-ct-list-'));
    writeFileSync(join(dir, 'log_list.json'), JSON.stringify(logList()));
    t = await startTestApp(
      {
        WORKER: 'on',
        WORKER_CRON: NEVER,
        CT_LOGS: ['list'],
        CT_LOG_LIST: join(dir, 'log_list.json'),
        CT_START: 'start',
        CT_POLL_SECONDS: 1,
      },
      { dataDir: join(dir, 'data') },
    );
    auth = bearer(await t.token(['read']));
    await seedDomain(t, { domain: 'example.com', platform: 'hackerone' });
  });

  afterAll(async () => {
    await t?.close();
    for (const log of [tiled, listedRfc, retired]) await log?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const logs = async (): Promise<CtLog[]> => (await t.get('/ct/logs', auth)).body.data as CtLog[];
  const reached = (url: string, size: number) =>
    waitFor(
      `the follower to reach entry ${size} of ${url}`,
      async () => {
        const state = (await logs()).find((l) => l.url === url);
        return state?.position === size ? state : undefined;
      },
      { ms: 30_000, context: () => JSON.stringify(tiled.requests.slice(-5)) },
    );
  const newHosts = async () =>
    ((await t.get('/subdomains/new?limit=500', auth)).body.data as { host: string }[]).map((h) => h.host);

  it('follows the usable and qualified logs of CT_LOG_LIST, each with its API, and no other', async () => {
    listedRfc.append(precertLeaf({ dns: ['listed.example.com'] }));
    await reached(listedRfc.url, 1);
    const shown = (await logs()).map((l) => [l.url, l.kind]);
    expect(shown.sort()).toEqual(
      [
        [listedRfc.url, 'rfc6962'],
        [tiled.url, 'static'],
      ].sort(),
    );
    expect(await newHosts()).toContain('listed.example.com');
    expect(retired.requests).toEqual([]);
  });

  it('reads full data tiles and the partial tile at the tail, gzip-compressed', async () => {
    // 300 entries: tile 000 full, tile 001 partial (44 wide). One in ten names a host; the rest are noise.
    for (let i = 0; i < 300; i++) {
      const dns = i % 10 === 0 ? [`T${i}.Example.com`, `*.w${i}.example.com`] : [`n${i}.unrelated.test`];
      tiled.append(tileLeaf(i % 5 < 3 ? 'precert' : 'x509', { dns }));
    }
    const state = await reached(tiled.url, 300);
    expect(state).toMatchObject({ kind: 'static', tree_size: 300, lag: 0, entries_total: 300, last_error: null });
    const hosts = new Set(await newHosts());
    for (let i = 0; i < 300; i += 10) {
      expect(hosts).toContain(`t${i}.example.com`);
      expect(hosts).toContain(`w${i}.example.com`);
    }
    expect(hosts).not.toContain('n1.unrelated.test');
    const served = tiled.requests.filter((r) => r.status === 200).map((r) => r.path);
    expect(served).toEqual(expect.arrayContaining(['000', '001.p/44']));
  });

  it('reads the full tile when the partial one its checkpoint names is gone, and honours 503 Retry-After', async () => {
    // The tiles hold 530 entries (tile 001 is full, its partials dropped), the checkpoint still says 400.
    for (let i = 300; i < 530; i++) tiled.append(tileLeaf('x509', { dns: [`late${i}.example.com`] }));
    tiled.checkpointSize = 400;
    tiled.busy = 1;
    const before = tiled.requests.length;
    await reached(tiled.url, 400);
    const tried = tiled.requests.slice(before);
    expect(tried.slice(0, 3).map((r) => [r.path, r.status])).toEqual([
      ['001.p/144', 503],
      ['001.p/144', 404],
      ['001', 200],
    ]);
    expect(tried[1].at - tried[0].at).toBeGreaterThanOrEqual(950);
    tiled.checkpointSize = null;
    await reached(tiled.url, 530);
    const hosts = new Set(await newHosts());
    expect(hosts).toContain('late399.example.com');
    expect(hosts).toContain('late529.example.com');
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM hosts h JOIN domains d ON d.id = h.domain_id
        WHERE d.domain = 'example.com' AND h.host LIKE 'late%'`,
    );
    expect(n).toBe(230);
  });
});

describe("webhooks of the follower's hosts", () => {
  let log: LoopbackCtLog;
  let receiver: Receiver;
  let t: TestApp;

  beforeAll(async () => {
    log = await new LoopbackCtLog().start();
    receiver = await new Receiver().start();
    t = await startTestApp({
      ...ctWorker(log),
      CT_WEBHOOK_GATHER_SECONDS: 3,
    });
    await seedDomain(t, { domain: 'example.com', platform: 'hackerone' });
    await seedDomain(t, { domain: 'other.org', platform: 'bugcrowd' });
    const webhooks = t.app.get(WebhooksService);
    await webhooks.add({ url: `${receiver.url}/json`, domains: 'example.com' });
    await webhooks.add({ url: `${receiver.url}/slack`, platforms: 'hackerone', format: 'slack' });
  });

  afterAll(async () => {
    await t?.close();
    await log?.stop();
    await receiver?.close();
  });

  const delivered = (path: string, n: number) =>
    waitFor(`${n} deliveries to ${path}`, () => (receiver.at(path).length >= n ? receiver.at(path) : undefined), {
      ms: 30_000,
    });

  it('gathers the hosts of a burst of pages into one delivery per webhook, then tells only newer ones', async () => {
    log.maxPerRequest = 2; // three pages, recorded one after another within the gathering
    log.append(
      x509Leaf({ dns: ['a.example.com', 'b.example.com'] }),
      precertLeaf({ dns: ['c.example.com'] }),
      x509Leaf({ dns: ['x.other.org'] }), // no webhook of other.org's
      precertLeaf({ dns: ['d.example.com', 'a.example.com'] }),
      x509Leaf({ dns: ['e.example.com'] }),
    );
    const [json] = await delivered('/json', 1);
    const body = JSON.parse(json.body);
    expect(body).toMatchObject({
      event: 'new_hosts',
      source: 'ct',
      scan_id: null,
      domain: 'example.com',
      platform: 'hackerone',
      new_count: 5,
      truncated: false,
    });
    expect(body.hosts.map((h: { host: string }) => h.host).sort()).toEqual([
      'a.example.com',
      'b.example.com',
      'c.example.com',
      'd.example.com',
      'e.example.com',
    ]);
    const [slack] = await delivered('/slack', 1);
    expect(JSON.parse(slack.body).text).toMatch(/^5 new hosts on example\.com \(hackerone\), from the CT logs\n/);

    // A certificate for known hosts and one new: the next delivery tells the new one alone.
    log.append(precertLeaf({ dns: ['a.example.com', 'f.example.com'] }));
    const second = JSON.parse((await delivered('/json', 2))[1].body);
    expect(second).toMatchObject({ source: 'ct', new_count: 1, hosts: [{ host: 'f.example.com' }] });
    await new Promise((resolve) => setTimeout(resolve, 4000)); // a gathering's length: nothing more arrives
    expect(receiver.at('/json')).toHaveLength(2);
    expect(receiver.at('/slack')).toHaveLength(2);
  }, 90_000);
});

describe('CT_LOGS', () => {
  it.each([['ftp://log.example/'], ['static:'], ['static:ftp://log.example/'], ['lists'], ['https://']])(
    'refuses %s at start with a ConfigError',
    (value) => {
      expect(() => loadEnvironment({ CT_LOGS: value })).toThrow(ConfigError);
      expect(() => loadEnvironment({ CT_LOGS: value })).toThrow(/CT_LOGS must be a comma list of log URLs/);
    },
  );

  it('reads a comma list of RFC 6962 and static-ct-api logs and the word list', () => {
    const env = loadEnvironment({ CT_LOGS: ' https://a.example/log/ , static:https://b.example/, LIST ' });
    expect(env.CT_LOGS).toEqual(['https://a.example/log/', 'static:https://b.example/', 'LIST']);
    expect(namedLogs(env.CT_LOGS!)).toEqual([
      { url: 'https://a.example/log', kind: 'rfc6962' },
      { url: 'https://b.example', kind: 'static' },
    ]);
  });
});

/** The built service killed with SIGKILL while it follows a log, then started again on the same database. */
describe('a follower killed mid-way', () => {
  const LEAVES = 1500;
  let log: LoopbackCtLog;
  let db: ProcessDatabase;
  let token: string;
  const servers: BuiltServer[] = [];

  const cli = async (...args: string[]) => {
    const r = await runCli(args, { ...db.env, LOG_LEVEL: 'error' });
    if (r.code !== 0) throw new Error(`cli ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim().split('\n').at(-1) ?? '';
  };
  const start = async () => {
    const server = await startBuiltServer({
      ...db.env,
      WORKER_CRON: NEVER,
      CT_LOGS: log.url,
      CT_START: 'start',
      CT_POLL_SECONDS: '1',
      CT_CONCURRENCY: '2',
    });
    servers.push(server);
    return server;
  };
  const api = async (server: BuiltServer, path: string) => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return res;
  };
  /** The `data` of a JSON answer. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
  const data = async (server: BuiltServer, path: string): Promise<any> =>
    ((await (await api(server, path)).json()) as { data: unknown }).data;
  const position = async (server: BuiltServer) =>
    ((await data(server, '/ct/logs'))[0] as CtLog | undefined)?.position ?? null;

  beforeAll(async () => {
    log = await new LoopbackCtLog().start();
    // Two hosts per certificate, 3,000 in all, served 20 entries per answer and slowly: a page takes a while.
    for (let i = 0; i < LEAVES; i++)
      log.append((i % 2 ? x509Leaf : precertLeaf)({ dns: [`a${i}.example.com`, `b${i}.example.com`] }));
    log.maxPerRequest = 20;
    log.delayMs = 40;
    db = await createProcessDatabase('sm-ct-kill-');
    await cli('domains', 'add', 'example.com', '--platform', 'self');
    token = await cli('tokens', 'create', '--name', 'ct-kill', '--scopes', 'read');
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    await db?.close();
    await log?.stop();
  });

  it('records every host exactly once after a kill -9 mid-batch and a restart', async () => {
    const first = await start();
    const reached = await waitFor('the follower to record a first page', async () => {
      const at = await position(first);
      return at !== null && at > 0 ? at : undefined;
    });
    expect(reached).toBeLessThan(LEAVES);
    await first.stop('SIGKILL');
    servers.splice(servers.indexOf(first), 1);
    const afterKill = log.requests.length;

    const second = await start();
    await waitFor(
      'the restarted follower to reach the end of the log',
      async () => ((await position(second)) === LEAVES ? true : undefined),
      { ms: 90_000, context: second.output },
    );
    // The restarted process went on from the saved position, not from the start.
    expect(log.requests[afterKill].start).toBeGreaterThanOrEqual(reached);
    const [state] = (await data(second, '/ct/logs')) as CtLog[];
    expect(state).toMatchObject({ tree_size: LEAVES, position: LEAVES, lag: 0, entries_total: LEAVES });
    const exported = (await (await api(second, '/export?domain=example.com&format=txt')).text()).trim().split('\n');
    expect(exported).toHaveLength(2 * LEAVES);
    expect(new Set(exported).size).toBe(2 * LEAVES);
    // The counters kept in each page's transaction count every host once.
    const domain = await data(second, '/domains/example.com');
    expect(domain.total_subdomains).toBe(2 * LEAVES);
    const stats = await data(second, '/stats');
    expect(stats.new).toMatchObject({ last_day: 2 * LEAVES });
  }, 180_000);
});
