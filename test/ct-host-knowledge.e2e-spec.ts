import { precertLeaf, x509Leaf } from './fixtures/ct-certs.js';
import { LoopbackCtLog } from './fixtures/ct-log.js';
import { waitFor } from './fixtures/wait.js';
import { SCAN_LATER, seedDomain } from './fixtures/data.js';
import { LoopbackDns } from './fixtures/dns-server.js';
import { type TestApp, bearer, startTestApp } from './fixtures/test-app.js';
import { ctWorker } from './fixtures/worker.js';
import { HostResolver } from '../src/intel/dns/host-resolver.service.js';

type Event = { host: string; after: unknown };

describe('host knowledge of the hosts the CT log follower records', () => {
  let log: LoopbackCtLog;
  let dns: LoopbackDns;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    log = await new LoopbackCtLog().start();
    dns = await new LoopbackDns().start();
    t = await startTestApp({
      ...ctWorker(log),
      RESOLVE: 'on',
      DNS_SERVERS: [dns.address],
      DNS_TIMEOUT_MS: 300,
    });
    auth = bearer(await t.token(['read']));
    await seedDomain(t, { domain: 'ctknow.test', platform: 'intigriti', nextScanAt: SCAN_LATER });
  });
  afterAll(async () => {
    await t?.close();
    await log?.stop();
    await dns?.close();
  });

  it('resolves them within seconds, and flags an alias dangling onto a vulnerable service as a takeover candidate', async () => {
    dns.records.set('fresh.ctknow.test', ['192.0.2.44']);
    dns.cnames.set('shop.ctknow.test', 'shop-prod.azurewebsites.net'); // dangles onto Azure: vulnerable
    dns.cnames.set('lb.ctknow.test', 'old.eu-west-1.elb.amazonaws.com'); // dangles onto ELB: not vulnerable
    log.append(
      x509Leaf({ cn: 'fresh.ctknow.test', dns: ['fresh.ctknow.test', 'shop.ctknow.test'] }),
      precertLeaf({ dns: ['lb.ctknow.test'] }),
    );
    type Row = { host: string; dns: { status: string } | null; takeover: object | null };
    const rows = await waitFor(
      'the CT hosts resolved',
      async () => {
        const data = (await t.get('/domains/ctknow.test/subdomains?fields=dns,takeover', auth)).body.data as Row[];
        return data.length === 3 && data.every((r) => r.dns !== null) ? data : undefined;
      },
      { ms: 20_000 },
    );
    const byHost = Object.fromEntries(rows.map((r) => [r.host, r]));
    expect(byHost['fresh.ctknow.test']).toMatchObject({
      dns: { status: 'resolved', a: ['192.0.2.44'], aaaa: [], cname: [] },
      takeover: null,
    });
    expect(byHost['shop.ctknow.test']).toMatchObject({
      dns: { status: 'nxdomain', a: [], aaaa: [], cname: ['shop-prod.azurewebsites.net'] },
      takeover: { service: 'Microsoft Azure', status: 'Vulnerable', evidence: 'NXDOMAIN' },
    });
    expect(byHost['lb.ctknow.test'].takeover).toEqual({
      service: 'AWS/Load Balancer (ELB)',
      status: 'Not vulnerable',
      evidence: 'NXDOMAIN',
    });
    const flagged = (await t.get('/domains/ctknow.test/subdomains?takeover=true&fields=dns,takeover', auth)).body
      .data as Row[];
    expect(flagged.map((r) => r.host).sort()).toEqual(['lb.ctknow.test', 'shop.ctknow.test']);
    const events = (await t.get('/events?domain=ctknow.test&type=takeover_candidate', auth)).body.data as Event[];
    expect(events.map((e) => [e.host, e.after])).toEqual([
      ['shop.ctknow.test', { service: 'Microsoft Azure', status: 'Vulnerable', evidence: 'NXDOMAIN' }],
    ]);
    // Seen again in a later certificate: already resolved, so not asked again, and nothing is raised twice.
    const asked = dns.queries;
    log.append(x509Leaf({ dns: ['shop.ctknow.test', 'fresh.ctknow.test'] }));
    await waitFor('the follower to read it', async () => {
      const [state] = (await t.get('/ct/logs', auth)).body.data as { position: number }[];
      return state.position === log.leaves.length ? true : undefined;
    });
    await t.app.get(HostResolver).idle();
    expect(dns.queries).toBe(asked);
    expect((await t.get('/events?domain=ctknow.test&type=takeover_candidate', auth)).body.data).toHaveLength(1);
  });
});
