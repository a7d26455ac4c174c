import { createServer, type Server } from 'node:http';
import { HostProber } from '../src/intel/probe/host-prober.service.js';
import { LoopbackCrtsh } from './fixtures/crtsh-server.js';
import { seedDomain } from './fixtures/data.js';
import { LoopbackDns } from './fixtures/dns-server.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { LoopbackWeb } from './fixtures/web-server.js';
import { NEVER, ctWorker, tickUntilIdle } from './fixtures/worker.js';
import { x509Leaf } from './fixtures/ct-certs.js';
import { LoopbackCtLog } from './fixtures/ct-log.js';
import { waitFor } from './fixtures/wait.js';

type Row = { host: string; http: Record<string, unknown> | null; takeover: object | null };

describe('the HTTP probe', () => {
  let crt: LoopbackCrtsh;
  let dns: LoopbackDns;
  let web: LoopbackWeb;

  beforeAll(async () => {
    crt = await new LoopbackCrtsh().start();
    dns = await new LoopbackDns().start();
    web = await new LoopbackWeb().start();
  });
  afterAll(async () => {
    await crt.close();
    await dns.close();
    await web.close();
  });

  const start = (extra: Record<string, unknown> = {}) =>
    startTestApp({
      WORKER: 'on',
      WORKER_CRON: NEVER,
      CRTSH_URL: crt.url,
      SCAN_SOURCES: ['crtsh'],
      SOURCE_ATTEMPTS: 1,
      RESOLVE: 'on',
      DNS_SERVERS: [dns.address],
      DNS_TIMEOUT_MS: 500,
      PROBE: 'on',
      PROBE_PORTS: [web.httpsPort, web.httpPort],
      PROBE_TIMEOUT_MS: 3000,
      ...extra,
    });

  /** Scans a domain whose hosts crt.sh names, and waits until their probes are kept. */
  async function scan(t: TestApp, domain: string, hosts: string[]): Promise<Record<string, Row>> {
    crt.names.set(domain, hosts);
    const auth = bearer(await t.token(['read', 'write']));
    expect((await t.post('/scans', { domain }, auth)).status).toBe(202);
    expect((await tickUntilIdle(t)).at(-1)).toMatchObject({ status: 'success' });
    await t.app.get(HostProber).idle();
    const rows = (await t.get(`/domains/${domain}/subdomains?fields=dns,http,takeover`, auth)).body.data as Row[];
    return Object.fromEntries(rows.map((r) => [r.host, r]));
  }

  describe('with PROBE_PRIVATE=on (the loopback servers are private addresses)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await start({ PROBE_PRIVATE: 'on' });
      await seedDomain(t, { domain: 'probe.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    });
    afterAll(() => t.close());

    it('keeps scheme, port, status, final URL, title, Server, length and the TLS certificate', async () => {
      for (const host of ['www.probe.test', 'moved.probe.test', 'bucket.probe.test'])
        dns.records.set(host, ['127.0.0.1']);
      const home = '<html><head><title>\n  Shop &amp; More &#8211; Home\n</title></head><body>hello</body></html>';
      web.pages.set('www.probe.test', {
        body: home,
        headers: { server: 'nginx-test', 'content-length': String(Buffer.byteLength(home)) },
      });
      web.pages.set('moved.probe.test', {
        status: 301,
        headers: { location: `https://www.probe.test:${web.httpsPort}/landing` },
      });
      // An alias onto S3 whose bucket is gone: the page shows S3's error text.
      dns.records.delete('bucket.probe.test');
      dns.cnames.set('bucket.probe.test', 'assets.s3.amazonaws.com');
      dns.records.set('assets.s3.amazonaws.com', ['127.0.0.1']);
      web.pages.set('bucket.probe.test', {
        status: 404,
        body: '<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>',
      });

      const rows = await scan(t, 'probe.test', ['www.probe.test', 'moved.probe.test', 'bucket.probe.test']);
      expect(rows['www.probe.test'].http).toEqual({
        listening: true,
        scheme: 'https',
        port: web.httpsPort,
        status: 200,
        final_url: `https://www.probe.test:${web.httpsPort}/`,
        title: 'Shop & More – Home',
        server: 'nginx-test',
        content_length: Buffer.byteLength(home),
        tls: {
          subject: 'CN=loopback.test, O=Loopback Test',
          issuer: 'CN=loopback.test, O=Loopback Test',
          not_after: expect.any(String),
        },
        probed_at: expect.any(String),
      });
      expect(rows['moved.probe.test'].http).toMatchObject({
        status: 200,
        final_url: `https://www.probe.test:${web.httpsPort}/landing`,
        title: 'Shop & More – Home',
      });
      expect(rows['bucket.probe.test']).toMatchObject({
        http: { status: 404 },
        takeover: { service: 'AWS/S3', status: 'Vulnerable', evidence: 'The specified bucket does not exist' },
      });
      const auth = bearer(await t.token(['read']));
      const events = (await t.get('/events?domain=probe.test&type=takeover_candidate,http_changed', auth)).body.data;
      expect(events.map((e: { type: string; host: string }) => [e.type, e.host])).toEqual([
        ['takeover_candidate', 'bucket.probe.test'],
      ]);
    });

    it('decodes named references in titles, and flags takeovers by fingerprints written as patterns', async () => {
      dns.records.set('cafe.probe.test', ['127.0.0.1']);
      web.pages.set('cafe.probe.test', { body: '<title>Caf&eacute; &mdash; &copy; &hellip;</title>' });
      // Aliases onto WordPress.com and Ghost(Pro) whose sites are unclaimed: their fingerprints are patterns.
      dns.cnames.set('blog.probe.test', 'acme-news.wordpress.com');
      dns.records.set('acme-news.wordpress.com', ['127.0.0.1']);
      web.pages.set('blog.probe.test', {
        status: 404,
        body:
          '<html><head><title>acme-news.wordpress.com doesn&#8217;t&nbsp;exist</title></head><body>' +
          '<h1><em>acme-news.wordpress.com</em> doesn&#8217;t&nbsp;exist</h1>\n' +
          '<p>Do you want to register <em>acme-news.wordpress.com</em>?</p></body></html>',
      });
      dns.cnames.set('news.probe.test', 'acme.ghost.io');
      dns.records.set('acme.ghost.io', ['127.0.0.1']);
      web.pages.set('news.probe.test', {
        status: 404,
        body: '<html><body>Failed to resolve DNS path for this host</body></html>',
      });
      // A live Ghost publication says none of it.
      dns.cnames.set('live.probe.test', 'live.ghost.io');
      dns.records.set('live.ghost.io', ['127.0.0.1']);
      web.pages.set('live.probe.test', { body: '<title>Acme Blog</title><p>Site unavailable on Sunday</p>' });

      const rows = await scan(t, 'probe.test', [
        'cafe.probe.test',
        'blog.probe.test',
        'news.probe.test',
        'live.probe.test',
      ]);
      expect(rows['cafe.probe.test'].http).toMatchObject({ title: 'Café — © …' });
      expect(rows['blog.probe.test']).toMatchObject({
        http: { status: 404, title: 'acme-news.wordpress.com doesn’t exist' },
        takeover: {
          service: 'Wordpress',
          status: 'Vulnerable',
          evidence: 'Do you want to register <em>acme-news.wordpress.com',
        },
      });
      expect(rows['news.probe.test'].takeover).toMatchObject({
        service: 'Ghost',
        evidence: 'Failed to resolve DNS path for this host',
      });
      expect(rows['live.probe.test']).toMatchObject({ http: { title: 'Acme Blog' }, takeover: null });
      const auth = bearer(await t.token(['read']));
      const events = (await t.get('/events?domain=probe.test&type=takeover_candidate', auth)).body.data;
      const flagged = events.map((e: { host: string }) => e.host);
      expect(flagged).toEqual(expect.arrayContaining(['blog.probe.test', 'news.probe.test']));
      expect(flagged).not.toContain('live.probe.test');
      expect(flagged).not.toContain('cafe.probe.test');
    });

    it('records a change of status or title as http_changed, and nothing when the page stays the same', async () => {
      dns.records.set('shop.probe.test', ['127.0.0.1']);
      web.pages.set('shop.probe.test', { body: '<title>Coming soon</title>' });
      await scan(t, 'probe.test', ['shop.probe.test']);
      const auth = bearer(await t.token(['read']));
      const feed = async () =>
        (await t.get('/events?domain=probe.test&type=http_changed', auth)).body.data as {
          host: string;
          before: object;
          after: object;
        }[];
      const before = (await feed()).length;

      web.pages.set('shop.probe.test', { status: 503, body: '<title>Down for maintenance</title>' });
      await scan(t, 'probe.test', ['shop.probe.test']);
      await scan(t, 'probe.test', ['shop.probe.test']); // the same page again: no change
      const down = (await t.get('/domains/probe.test/subdomains?status=503&fields=http', auth)).body.data as Row[];
      expect(down.map((r) => r.host)).toEqual(['shop.probe.test']);
      const changes = (await feed()).slice(before);
      expect(changes.map((e) => [e.host, e.before, e.after])).toEqual([
        [
          'shop.probe.test',
          { listening: true, scheme: 'https', port: web.httpsPort, status: 200, title: 'Coming soon' },
          { listening: true, scheme: 'https', port: web.httpsPort, status: 503, title: 'Down for maintenance' },
        ],
      ]);
    });

    it('resolves a host out of scope but never probes it', async () => {
      await seedDomain(t, { domain: 'skip.test', nextScanAt: new Date(Date.now() + 86_400_000) });
      const write = bearer(await t.token(['read', 'write']));
      expect((await t.post('/domains/skip.test/exclusions', { pattern: 'hidden.skip.test' }, write)).status).toBe(201);
      for (const host of ['shown.skip.test', 'hidden.skip.test']) dns.records.set(host, ['127.0.0.1']);
      await scan(t, 'skip.test', ['shown.skip.test', 'hidden.skip.test']);
      const rows = (await t.get('/domains/skip.test/subdomains?scope=all&fields=dns,http', write)).body.data as (Row & {
        dns: { status: string } | null;
      })[];
      const byHost = Object.fromEntries(rows.map((r) => [r.host, r]));
      expect(byHost['shown.skip.test'].http).toMatchObject({ listening: true });
      expect(byHost['hidden.skip.test'].dns).toMatchObject({ status: 'resolved' });
      expect(byHost['hidden.skip.test'].http).toBeNull();
    });

    it('exports the extra fields asked for: ips, cname, status, title, in each format', async () => {
      dns.records.set('exp.probe.test', ['127.0.0.1']);
      dns.aaaa.set('exp.probe.test', ['::1']);
      web.pages.set('exp.probe.test', { status: 201, body: '<title>Say "hi", world</title>' });
      await scan(t, 'probe.test', ['exp.probe.test']);
      const auth = bearer(await t.token(['read']));
      const get = async (format: string) =>
        (await t.get(`/export?domain=probe.test&search=exp.&fields=ips,cname,status,title&format=${format}`, auth))
          .text;

      const csv = (await get('csv')).split('\r\n');
      expect(csv[0]).toBe('host,domain,platform,first_seen_at,is_active,ips,cname,status,title');
      expect(csv[1]).toMatch(
        /^exp\.probe\.test,probe\.test,self,[^,]+,true,127\.0\.0\.1 ::1,,201,"Say ""hi"", world"$/,
      );
      expect(await get('txt')).toBe('exp.probe.test\t127.0.0.1 ::1\t\t201\tSay "hi", world\n');
      expect(JSON.parse(await get('json'))).toEqual([
        expect.objectContaining({
          host: 'exp.probe.test',
          ips: ['127.0.0.1', '::1'],
          cname: [],
          status: 201,
          title: 'Say "hi", world',
        }),
      ]);
      // Without fields, the contract's columns and nothing else.
      expect((await t.get('/export?domain=probe.test&search=exp.', auth)).text).toBe('exp.probe.test\n');
      expect((await t.get('/export?fields=ips,bogus', auth)).status).toBe(400);
    });

    it('carries the fields asked for on the platform bulk feed, in json and txt', async () => {
      dns.cnames.set('bulk.probe.test', 'edge.cdn.example');
      dns.records.set('edge.cdn.example', ['127.0.0.1']);
      web.pages.set('bulk.probe.test', { status: 404, body: '<title>Not\there</title>' });
      dns.records.set('quiet.probe.test', ['127.0.0.3']); // nothing listens there
      await scan(t, 'probe.test', ['bulk.probe.test', 'quiet.probe.test']);
      const auth = bearer(await t.token(['read']));
      const page = async (query: string) => {
        // Walk the whole feed: the probe.test rows, whatever else the platform holds.
        const rows: Record<string, unknown>[] = [];
        for (let cursor: string | null = null; ;) {
          const res = await t.get(
            `/platforms/self/subdomains?active=false&limit=2&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            auth,
          );
          expect(res.status).toBe(200);
          rows.push(...res.body.data);
          cursor = res.body.meta.next_cursor;
          if (!cursor) return Object.fromEntries(rows.map((r) => [r.host, r]));
        }
      };

      const rows = await page('fields=title,ips,cname,status');
      expect(rows['bulk.probe.test']).toEqual({
        host: 'bulk.probe.test',
        domain: 'probe.test',
        is_active: true,
        sources: expect.any(Array),
        in_scope: true,
        ips: ['127.0.0.1'],
        cname: ['edge.cdn.example'],
        status: 404,
        title: 'Not here',
      });
      // A host with no alias, where nothing answers: an empty chain, no status or title.
      expect(rows['quiet.probe.test']).toMatchObject({ ips: ['127.0.0.3'], cname: [], status: null, title: null });
      // Only the fields asked for; without fields, the contract's row.
      expect(Object.keys((await page('fields=status'))['bulk.probe.test'])).toEqual([
        'host',
        'domain',
        'is_active',
        'sources',
        'in_scope',
        'status',
      ]);
      expect(Object.keys((await page(''))['bulk.probe.test'])).toEqual([
        'host',
        'domain',
        'is_active',
        'sources',
        'in_scope',
      ]);

      // A field named twice is one key (JSON.parse would hide a repeated key: count them in the text).
      const twice = await t.get('/platforms/self/subdomains?active=false&limit=10000&fields=status,status', auth);
      expect(twice.text.match(/"status":/g)).toHaveLength(twice.body.data.length);

      const text = await t.get(
        '/platforms/self/subdomains?format=txt&active=false&limit=10000&fields=ips,cname,status,title',
        auth,
      );
      expect(text.status).toBe(200);
      const lines = text.text.split('\n');
      expect(lines).toContain('bulk.probe.test\t127.0.0.1\tedge.cdn.example\t404\tNot here');
      expect(lines).toContain('quiet.probe.test\t127.0.0.3\t\t\t');
      expect((await t.get('/platforms/self/subdomains?format=txt&limit=10000', auth)).text.split('\n')).toContain(
        'bulk.probe.test',
      );
      const bad = await t.get('/platforms/self/subdomains?fields=ips,bogus', auth);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_query');
    });
  });

  describe('of pages in the charset they declare', () => {
    // Bodies as bytes (the loopback web server writes strings as UTF-8): each host's page is sent as set here.
    const pages = new Map<string, { contentType: string; body: Buffer }>();
    let server: Server;
    let port = 0;
    let t: TestApp;
    beforeAll(async () => {
      server = createServer((req, res) => {
        const page = pages.get((req.headers.host ?? '').replace(/:\d+$/, ''));
        res.writeHead(page ? 200 : 404, { 'content-type': page?.contentType ?? 'text/plain' }).end(page?.body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
      t = await start({ PROBE_PRIVATE: 'on', PROBE_PORTS: [port] });
      await seedDomain(t, { domain: 'charset.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    });
    afterAll(async () => {
      await t.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('keeps the title of an ISO-8859-1, windows-1251 or Shift_JIS page as its author wrote it', async () => {
      const latin1 = (html: string) => Buffer.from(html, 'latin1');
      pages.set('header.charset.test', {
        contentType: 'text/html; charset=ISO-8859-1',
        body: latin1('<html><head><title>Caf\u00e9 M\u00fcnchen \x80 5</title></head></html>'),
      });
      pages.set('meta.charset.test', {
        contentType: 'text/html',
        body: latin1('<html><head><meta charset="iso-8859-1"><title>Caf\u00e9 M\u00fcnchen</title></head></html>'),
      });
      pages.set('pragma.charset.test', {
        contentType: 'text/html',
        body: Buffer.concat([
          Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><title>'),
          Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
          Buffer.from('</title>'),
        ]),
      });
      pages.set('sjis.charset.test', {
        contentType: 'text/html; charset=Shift_JIS',
        body: Buffer.concat([Buffer.from('<title>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b]), Buffer.from('</title>')]),
      });
      pages.set('unknown.charset.test', {
        contentType: 'text/html; charset=klingon',
        body: Buffer.from('<title>Café München</title>', 'utf8'),
      });
      const hosts = [...pages.keys()];
      for (const host of hosts) dns.records.set(host, ['127.0.0.1']);

      const rows = await scan(t, 'charset.test', hosts);
      expect(Object.fromEntries(hosts.map((h) => [h, rows[h].http?.title]))).toEqual({
        'header.charset.test': 'Café München € 5',
        'meta.charset.test': 'Café München',
        'pragma.charset.test': 'Привет',
        'sjis.charset.test': '日本',
        'unknown.charset.test': 'Café München',
      });
      // What the API shows is what was kept.
      const auth = bearer(await t.token(['read']));
      const host = (await t.get('/hosts/header.charset.test', auth)).body.data;
      expect(host.http).toMatchObject({ title: 'Café München € 5', port });
    });
  });

  describe('by default', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await start();
      await seedDomain(t, { domain: 'inside.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    });
    afterAll(() => t.close());

    it('never probes a host whose addresses are loopback or private', async () => {
      dns.records.set('intranet.inside.test', ['127.0.0.1']);
      dns.records.set('router.inside.test', ['192.168.1.1', '10.0.0.1']);
      web.pages.set('intranet.inside.test', { body: '<title>Internal</title>' });
      const rows = await scan(t, 'inside.test', ['intranet.inside.test', 'router.inside.test']);
      expect(rows['intranet.inside.test']).toMatchObject({ http: null });
      expect(rows['router.inside.test']).toMatchObject({ http: null });
      expect(web.requestsFor('intranet.inside.test')).toEqual([]);
    });
  });

  describe('of the hosts the CT log follower records', () => {
    let log: LoopbackCtLog;
    let t: TestApp;
    beforeAll(async () => {
      log = await new LoopbackCtLog().start();
      t = await start({ ...ctWorker(log), PROBE_PRIVATE: 'on' });
      await seedDomain(t, { domain: 'ctprobe.test', nextScanAt: new Date(Date.now() + 86_400_000) });
    });
    afterAll(async () => {
      await t.close();
      await log.stop();
    });

    it('probes a host within seconds of its certificate, after resolving it', async () => {
      dns.records.set('new.ctprobe.test', ['127.0.0.1']);
      web.pages.set('new.ctprobe.test', { body: '<title>Just launched</title>' });
      log.append(x509Leaf({ dns: ['new.ctprobe.test'] }));
      const auth = bearer(await t.token(['read']));
      const row = await waitFor(
        'the CT host probed',
        async () => {
          const [found] = (await t.get('/domains/ctprobe.test/subdomains?fields=dns,http', auth)).body.data as Row[];
          return found?.http ? found : undefined;
        },
        { ms: 20_000 },
      );
      expect(row.http).toMatchObject({ listening: true, status: 200, title: 'Just launched' });
    });
  });
});
