import type { CtLogRow } from '../../../ct/ct-logs.repository.js';
import type { ScanDto, WorkerStatusDto } from '../../../discovery/dto/scan.dto.js';
import type { SourceHealthDto } from '../../../discovery/dto/source-health.dto.js';
import { domainPage } from './domain.js';
import { hostPage } from './host.js';
import { type OverviewView, overviewPage } from './overview.js';
import type { Viewer } from './page.js';
import { pageUrl } from './pager.js';
import { programsPage } from './programs.js';
import { searchPage } from './search.js';

const viewer: Viewer = { email: 'a@example.com', name: 'A', csrf: 'token', canRead: true, canWrite: false };
const HOSTILE = `<img src=x onerror="alert(1)">'&`;

const worker: WorkerStatusDto = {
  health: { running_scans: 1, scanned_30m: 12, errors_30m: 2, last_error: HOSTILE, last_error_at: null },
  cycle: {
    due_domains: 3,
    total_domains: 10,
    enabled_domains: 9,
    queued_domains: 1,
    sweep_coverage: 0.5,
    interval_hours: 24,
  },
};
const source = (name: string, over: Partial<SourceHealthDto> = {}): SourceHealthDto => ({
  source: name,
  configured: true,
  successes: 7,
  failures: 0,
  last_failure: null,
  last_failure_at: null,
  ms_median: 1250,
  ms_p95: 4000,
  names: 500,
  seen: 480,
  new: 12,
  flooding: false,
  days: [],
  ...over,
});
const overview = (logs: CtLogRow[], sources: SourceHealthDto[] = []): OverviewView => ({
  platforms: [{ slug: 'hackerone', name: 'HackerOne', domain_count: 2, subdomain_count: 1234, new_24h: 5 }],
  days: new Map([
    [
      'hackerone',
      [
        { day: '2026-11-25', n: 2 },
        { day: '2026-11-26', n: 3 },
      ],
    ],
  ]),
  worker,
  logs,
  sources,
  recent: [],
  tail: '2026-11-26T10:00:00.000000Z_0',
});
const log = (lag: number | null): CtLogRow => ({
  url: `https://ct.example/${HOSTILE}`,
  kind: 'static',
  tree_size: 100,
  position: 40,
  lag,
  entries_total: 40,
  hosts_total: 3,
  last_polled_at: '2026-11-26T10:00:00.000000Z',
  last_error: null,
  last_error_at: null,
});

describe('dashboard pages', () => {
  it('shows the CT followers and their lag only when logs are followed', () => {
    expect(overviewPage(viewer, overview([]))).not.toContain('<h3>CT followers');
    // No host in the list: the live list resumes from where the stream started when the page was made.
    expect(overviewPage(viewer, overview([]))).toContain('data-after="2026-11-26T10:00:00.000000Z_0"');
    const page = overviewPage(viewer, overview([log(60), log(20_000), log(null)]));
    expect(page).toContain('CT followers <span class="badge warn">lag 20,000</span>');
    expect(page).toContain('<td>60</td>');
    expect(page).toContain('<td>—</td>');
    expect(page).toContain('1,234');
    expect(page).toContain('data-days="[&quot;2026-11-25&quot;,&quot;2026-11-26&quot;]"');
    expect(page).toContain('HackerOne: 5 new hosts in 2 days');
  });

  it('shows what each source did: scans, failures, time, names, new, and a source that floods', () => {
    expect(overviewPage(viewer, overview([]))).not.toContain('<h3>Sources');
    const page = overviewPage(
      viewer,
      overview(
        [],
        [
          source('crtsh', { failures: 2, last_failure: 'crtsh: HTTP 502' }),
          source('dns', { names: 9000, seen: 40, flooding: true, configured: false, ms_median: null }),
        ],
      ),
    );
    const row = (name: string) =>
      page.slice(page.indexOf(`data-source="${name}"`), page.indexOf('</tr>', page.indexOf(`data-source="${name}"`)));
    expect(row('crtsh')).toContain('2 failed');
    expect(row('crtsh')).toContain('1,250 ms');
    expect(row('crtsh')).not.toContain('floods');
    expect(row('dns')).toContain('floods');
    expect(row('dns')).toContain('>off<');
    expect(row('dns')).toContain('<td>9,000</td>');
    expect(row('dns')).toContain('<td>—</td>');
  });

  it('escapes what comes from outside: error messages, log URLs, program names', () => {
    const pages: string[] = [
      overviewPage(viewer, overview([log(1)], [source('command', { failures: 1, last_failure: HOSTILE })])),
      programsPage(viewer, {
        domains: [
          {
            domain: 'example.com',
            platform: 'self',
            program: HOSTILE,
            enabled: true,
            total_subdomains: 1,
            new_subdomains_last_scan: 0,
            last_scanned_at: null,
            last_scan_status: null,
          },
        ],
        query: { search: HOSTILE, sort: 'domain', limit: 100, offset: 0 },
        total: 1,
      }),
    ];
    pages.push(
      searchPage(viewer, { q: HOSTILE, hosts: [], limit: 100, offset: 0, problem: undefined }),
      hostPage(viewer, 'a.example.com', {
        id: '1',
        host: 'a.example.com',
        domain: 'example.com',
        platform: 'self',
        first_seen_at: '2026-11-26T10:00:00.000000Z',
        last_seen_at: '2026-11-26T10:00:00.000000Z',
        is_active: true,
        sources: ['ct'],
        dns: { status: 'resolved', a: ['192.0.2.1'], aaaa: [], cname: [HOSTILE], resolved_at: '2026-11-26T10:00:00Z' },
        takeover: { service: HOSTILE, status: 'Vulnerable', evidence: HOSTILE },
        http: {
          listening: true,
          scheme: 'https',
          port: 443,
          status: 200,
          final_url: HOSTILE,
          title: HOSTILE,
          server: HOSTILE,
          content_length: 1,
          tls: { subject: HOSTILE, issuer: HOSTILE, not_after: '2027-01-01T00:00:00Z' },
          probed_at: '2026-11-26T10:00:00Z',
        },
        wildcard: false,
        in_scope: true,
        history: [
          {
            id: 'e1',
            type: 'http_changed',
            host: 'a.example.com',
            domain: 'example.com',
            platform: 'self',
            at: '2026-11-26T10:00:00Z',
            before: null,
            after: { listening: true, scheme: 'https', port: 443, status: 200, title: HOSTILE },
          },
        ],
      }),
    );
    for (const page of pages) {
      expect(page).not.toContain('<img');
      expect(page).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;');
    }
  });

  it('offers the queue button to a write owner only', () => {
    const view = {
      domain: {
        domain: 'example.com',
        platform: 'self',
        program: null,
        enabled: true,
        total_subdomains: 0,
        new_subdomains_last_scan: 0,
        last_scanned_at: null,
        last_scan_status: null,
        stats: { total: 0, new_24h: 0, new_7d: 0, active: 0, inactive: 0 },
      },
      hosts: [],
      total: 0,
      query: { filter: 'all', limit: 100, offset: 0 },
      days: [],
      scans: [],
      queuedSince: null,
    };
    expect(domainPage(viewer, 'example.com', view)).not.toContain('Queue a scan');
    expect(domainPage({ ...viewer, canWrite: true }, 'example.com', view)).toContain('Queue a scan');
    expect(domainPage(viewer, 'example.com', { ...view, queuedSince: '2026-11-26T10:00:00.000000Z' })).toContain(
      'A scan of example.com is queued (since 2026-11-26 10:00 UTC)',
    );
    const running: ScanDto = {
      id: '6f1c2d3e-0000-4000-8000-000000000001',
      domain: 'example.com',
      platform: 'self',
      trigger: 'cron',
      status: 'running',
      found_count: 0,
      new_count: 0,
      reactivated_count: 0,
      inactive_count: 0,
      dropped_count: 0,
      source_stats: {},
      error: null,
      started_at: '2026-11-26T09:59:00.000000Z',
      finished_at: null,
      duration_ms: null,
    };
    expect(domainPage(viewer, 'example.com', { ...view, scans: [running] })).toContain(
      'A scan of example.com is running.',
    );
    const both = domainPage(viewer, 'example.com', {
      ...view,
      scans: [running],
      queuedSince: '2026-11-26T10:00:00.000000Z',
    });
    expect(both.replace(/\s+/g, ' ')).toContain(
      'A scan of example.com is running; another is queued (since 2026-11-26 10:00 UTC) and starts when it ends.',
    );
  });

  it('keeps links short: no empty values and no defaults in the query', () => {
    expect(
      pageUrl(
        '/app/programs',
        { search: '', platform: undefined, sort: 'domain', offset: 0 },
        { sort: 'domain', offset: 0 },
      ),
    ).toBe('/app/programs');
    expect(pageUrl('/app/search', { q: 'a&b c', offset: 100 }, { offset: 0 })).toBe('/app/search?q=a%26b+c&offset=100');
  });
});
