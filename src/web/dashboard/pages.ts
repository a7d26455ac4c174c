import { versioned } from '../account/assets.js';
import { type Html, html } from '../html.js';
import { layout, type NavPath, type PageUser } from '../account/pages.js';
import type { CtLogRow } from '../../ct/ct-logs.repository.js';
import type { DomainDetailDto, DomainDto } from '../../domains/dto/domain.dto.js';
import { DOMAIN_SORTS, type DomainSort } from '../../domains/dto/list-domains.query.js';
import type { HostEventDto } from '../../events/dto/event.dto.js';
import type {
  DnsAnswerDto,
  HttpChangeDto,
  ScopeChangeDto,
  TakeoverDto,
  WildcardZoneDto,
} from '../../hosts/model/knowledge.dto.js';
import { HOST_FILTERS } from '../../hosts/dto/host-queries.js';
import type { DomainHostDto, FeedHostDto, HostDetailDto, SearchHostDto } from '../../hosts/dto/host.dto.js';
import type { PlatformDto } from '../../platforms/dto/platform.dto.js';
import { SCOPE_MODES, WILDCARD_MODES } from '../../hosts/model/knowledge-filter.js';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';
import type { ScanDto, WorkerStatusDto } from '../../discovery/dto/scan.dto.js';
import type { DayCount } from '../../stats/stats.repository.js';
import { DASHBOARD_JS, UPLOT_CSS, UPLOT_JS } from './assets.js';

/** The signed-in owner as the dashboard shows them: who, and what their keys may do. */
export interface Viewer extends PageUser {
  canRead: boolean;
  canWrite: boolean;
}

const SCRIPTS = [versioned('/app/uplot.js', UPLOT_JS), versioned('/app/app.js', DASHBOARD_JS)];
const STYLES = [versioned('/app/uplot.css', UPLOT_CSS)];

/** A time to the minute, UTC; "—" for none. */
const when = (at: string | null | undefined) => (at ? `${at.replace('T', ' ').slice(0, 16)} UTC` : '—');
const count = (n: number) => n.toLocaleString('en-US');

/** A path with its query: empty values and the defaults given are left out, so links stay short and stable. */
export function pageUrl(
  path: string,
  params: Record<string, string | number | boolean | undefined | null>,
  defaults: Record<string, string | number | boolean> = {},
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '' || defaults[name] === value) continue;
    query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

const hostLink = (host: string) => html`<a href="/app/hosts/${encodeURIComponent(host)}">${host}</a>`;
const domainLink = (domain: string) => html`<a href="/app/domains/${encodeURIComponent(domain)}">${domain}</a>`;

function page(title: string, viewer: Viewer, current: NavPath | undefined, body: Html): string {
  return layout(title, body, { user: viewer, current, scripts: SCRIPTS, styles: STYLES });
}

/** What an owner without an active key sees in place of the data. */
function noKeys(): Html {
  return html`<section>
    <p class="notice" role="status">
      The dashboard shows what your API keys can read, and you have no active key.
      <a href="/account">Create one on your account page</a>.
    </p>
  </section>`;
}

/** A chart the script draws with uPlot: days and their counts in data attributes, a summary for everyone. */
function dayChart(kind: 'spark' | 'bars', days: DayCount[], label: string): Html {
  const total = days.reduce((sum, d) => sum + d.n, 0);
  return html`<figure
    class="chart ${kind}"
    data-chart="${kind}"
    data-days="${JSON.stringify(days.map((d) => d.day))}"
    data-values="${JSON.stringify(days.map((d) => d.n))}"
  >
    <div class="plot" aria-hidden="true"></div>
    <figcaption class="muted">${label}: ${count(total)} new hosts in ${days.length} days</figcaption>
  </figure>`;
}

/** Knowledge of a host in a few words: addresses, the HTTP answer, and flags worth a look. */
function knowledge(host: Pick<DomainHostDto, 'dns' | 'http' | 'takeover' | 'wildcard' | 'in_scope'>): Html {
  const dns = host.dns;
  const addresses = dns
    ? dns.status === 'resolved'
      ? [...dns.a, ...dns.aaaa].slice(0, 2).join(', ')
      : dns.status
    : '';
  const http = host.http?.listening
    ? `${host.http.status ?? ''} ${host.http.title ?? ''}`.trim() || `${host.http.scheme ?? ''}:${host.http.port ?? ''}`
    : '';
  return html`<td class="addr">${addresses}</td>
    <td class="http">${http.slice(0, 80)}</td>
    <td>
      ${host.takeover ? html`<span class="badge danger">takeover ${host.takeover.service}</span>` : ''}
      ${host.wildcard ? html`<span class="badge">wildcard</span>` : ''}
      ${host.in_scope === false ? html`<span class="badge warn">out of scope</span>` : ''}
    </td>`;
}

/** Previous and next links for an offset page; the other parameters kept. */
function pager(
  path: string,
  params: Record<string, string | number | boolean | undefined>,
  defaults: Record<string, string | number | boolean>,
  { limit, offset, total, shown }: { limit: number; offset: number; total?: number; shown: number },
): Html {
  const more = total === undefined ? shown === limit : offset + shown < total;
  const range = shown ? `${count(offset + 1)}–${count(offset + shown)}` : '0';
  return html`<nav class="pager" aria-label="Pages">
    <span class="muted">${range}${total === undefined ? '' : ` of ${count(total)}`}</span>
    ${
      offset > 0
        ? html`<a rel="prev" href="${pageUrl(path, { ...params, offset: Math.max(0, offset - limit) }, defaults)}"
            >Previous</a
          >`
        : ''
    }
    ${more ? html`<a rel="next" href="${pageUrl(path, { ...params, offset: offset + limit }, defaults)}">Next</a>` : ''}
  </nav>`;
}

export interface OverviewView {
  platforms: PlatformDto[];
  days: Map<string, DayCount[]>;
  worker: WorkerStatusDto;
  logs: CtLogRow[];
  recent: FeedHostDto[];
  /** Where the live list's stream starts when the list is empty (the stream's start when the page was made). */
  tail: string;
}

export function overviewPage(viewer: Viewer, view?: OverviewView): string {
  if (!view) return page('Overview', viewer, '/app', noKeys());
  const { health, cycle } = view.worker;
  const newest = view.recent[0];
  const lag = view.logs.reduce((most, log) => Math.max(most, log.lag ?? 0), 0);
  return page(
    'Overview',
    viewer,
    '/app',
    html`<h1>Overview</h1>
      <div class="cards">
        ${view.platforms.map(
          (p) =>
            html`<section class="card" data-platform="${p.slug}">
              <h2><a href="${pageUrl('/app/programs', { platform: p.slug })}">${p.name}</a></h2>
              <dl class="figures">
                <div>
                  <dt>Programs</dt>
                  <dd>${count(p.domain_count)}</dd>
                </div>
                <div>
                  <dt>Hosts</dt>
                  <dd>${count(p.subdomain_count)}</dd>
                </div>
                <div>
                  <dt>New in 24 h</dt>
                  <dd data-new-24h>${count(p.new_24h)}</dd>
                </div>
              </dl>
              ${dayChart('spark', view.days.get(p.slug) ?? [], p.name)}
            </section>`,
        )}
      </div>
      <div class="columns">
        <section
          id="live"
          data-after="${newest ? `${newest.first_seen_at}_${newest.id}` : view.tail}"
          aria-labelledby="live-title"
        >
          <h2 id="live-title">New hosts <span class="badge" data-live-status>as of loading</span></h2>
          <p class="muted">Hosts appear here as scans and the CT followers record them.</p>
          <ol class="live" aria-live="polite">
            ${view.recent.map(
              (h) =>
                html`<li>${hostLink(h.host)} <span class="muted">${h.domain} · ${when(h.first_seen_at)}</span></li>`,
            )}
          </ol>
          ${view.recent.length ? '' : html`<p class="muted" data-live-empty>No host was found in the last 24 hours.</p>`}
        </section>
        <section aria-labelledby="worker-title">
          <h2 id="worker-title">Worker</h2>
          <dl class="figures">
            <div>
              <dt>Running scans</dt>
              <dd data-running>${count(health.running_scans)}</dd>
            </div>
            <div>
              <dt>Scans in 30 min</dt>
              <dd>${count(health.scanned_30m)}</dd>
            </div>
            <div>
              <dt>Errors in 30 min</dt>
              <dd class="${health.errors_30m ? 'bad' : ''}">${count(health.errors_30m)}</dd>
            </div>
            <div>
              <dt>Queued</dt>
              <dd>${count(cycle.queued_domains)}</dd>
            </div>
            <div>
              <dt>Due</dt>
              <dd>${count(cycle.due_domains)}</dd>
            </div>
            <div>
              <dt>Sweep coverage</dt>
              <dd>${Math.round(cycle.sweep_coverage * 100)}%</dd>
            </div>
          </dl>
          ${
            health.last_error
              ? html`<p class="muted">Last error ${when(health.last_error_at)}: ${health.last_error.slice(0, 300)}</p>`
              : ''
          }
          ${
            view.logs.length
              ? html`<h3>CT followers <span class="badge ${lag > 10_000 ? 'warn' : ''}">lag ${count(lag)}</span></h3>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Log</th>
                        <th scope="col">Behind</th>
                        <th scope="col">Last read</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${view.logs.map(
                        (log) =>
                          html`<tr>
                            <td class="url">${log.url}</td>
                            <td>${log.lag === null ? '—' : count(log.lag)}</td>
                            <td>
                              ${when(log.last_polled_at)}${log.last_error ? html` <span class="badge warn">error</span>` : ''}
                            </td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>`
              : ''
          }
        </section>
      </div>`,
  );
}

const SORT_LABELS: Record<DomainSort, string> = {
  domain: 'Domain',
  total_subdomains: 'Hosts',
  new_subdomains_last_scan: 'New last scan',
  last_scanned_at: 'Last scan',
};

export interface ProgramsView {
  domains: DomainDto[];
  query: { search?: string; platform?: string; enabled?: boolean; sort: DomainSort; limit: number; offset: number };
  total: number;
}

export function programsPage(viewer: Viewer, view?: ProgramsView): string {
  if (!view) return page('Programs', viewer, '/app/programs', noKeys());
  const { query } = view;
  const params = {
    search: query.search,
    platform: query.platform,
    enabled: query.enabled,
    sort: query.sort,
    limit: query.limit,
  };
  const defaults = { sort: 'domain', limit: 100, offset: 0 };
  const header = (sort: DomainSort) =>
    html`<th
      scope="col"
      class="${sort === 'domain' || sort === 'last_scanned_at' ? '' : 'num'}"
      aria-sort="${sort === query.sort ? (sort === 'domain' ? 'ascending' : 'descending') : 'none'}"
    >
      <a href="${pageUrl('/app/programs', { ...params, sort }, defaults)}">${SORT_LABELS[sort]}</a>
    </th>`;
  return page(
    'Programs',
    viewer,
    '/app/programs',
    html`<h1>Programs</h1>
      <section>
        <form class="filters" method="get" action="/app/programs" role="search">
          <label for="search">Domain contains</label>
          <input id="search" name="search" type="text" value="${query.search ?? ''}" maxlength="253" />
          <label for="platform">Platform</label>
          <select id="platform" name="platform">
            <option value="">All platforms</option>
            ${PLATFORM_SLUGS.map(
              (slug) => html`<option value="${slug}" ${slug === query.platform ? html`selected` : ''}>${slug}</option>`,
            )}
          </select>
          <input type="hidden" name="sort" value="${query.sort}" />
          <button type="submit">Filter</button>
        </form>
        <div class="scroll">
          <table class="programs">
            <thead>
              <tr>
                ${header('domain')}
                <th scope="col">Platform</th>
                <th scope="col">Program</th>
                ${DOMAIN_SORTS.filter((s) => s !== 'domain').map(header)}
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              ${view.domains.map(
                (d) =>
                  html`<tr>
                    <td>${domainLink(d.domain)}</td>
                    <td>${d.platform}</td>
                    <td>${d.program ?? '—'}</td>
                    <td class="num">${count(d.total_subdomains)}</td>
                    <td class="num">${count(d.new_subdomains_last_scan)}</td>
                    <td>${when(d.last_scanned_at)}</td>
                    <td>
                      ${d.enabled ? (d.last_scan_status ?? 'not scanned yet') : html`<span class="badge">disabled</span>`}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        ${view.domains.length ? '' : html`<p class="muted">No tracked domain matches.</p>`}
        ${pager('/app/programs', params, defaults, { ...query, total: view.total, shown: view.domains.length })}
      </section>`,
  );
}

const FILTER_LABELS: Record<(typeof HOST_FILTERS)[number], string> = {
  all: 'All',
  new: 'New (24 h)',
  active: 'Active',
  inactive: 'Inactive',
};

const WILDCARD_LABELS: Record<(typeof WILDCARD_MODES)[number], string> = {
  include: 'Shown',
  exclude: 'Left out',
  only: 'Only them',
};
const SCOPE_LABELS: Record<(typeof SCOPE_MODES)[number], string> = {
  in: 'In scope',
  out: 'Out of scope',
  all: 'Both',
};

export interface DomainView {
  domain: DomainDetailDto;
  hosts: DomainHostDto[];
  total: number;
  /** The host list's query, as the URL gives it. */
  query: Record<string, string | number | boolean | undefined> & { filter: string; limit: number; offset: number };
  days: DayCount[];
  scans: ScanDto[];
  /** When a scan of the domain was queued, while the worker has not started it. */
  queuedSince: string | null;
}

/** What the worker is doing for the domain: a scan queued, running, or both; nothing when neither. */
function scanNotice(domain: string, queuedSince: string | null, running: boolean): Html | string {
  if (queuedSince && running) {
    return html`<p class="notice" role="status">
      A scan of ${domain} is running; another is queued (since ${when(queuedSince)}) and starts when it ends.
    </p>`;
  }
  if (queuedSince) {
    return html`<p class="notice" role="status">
      A scan of ${domain} is queued (since ${when(queuedSince)}); the worker starts it at its next tick.
    </p>`;
  }
  return running ? html`<p class="notice" role="status">A scan of ${domain} is running.</p>` : '';
}
export function domainPage(viewer: Viewer, name: string, view?: DomainView): string {
  if (!view) return page(name, viewer, undefined, noKeys());
  const { domain, query } = view;
  const path = `/app/domains/${encodeURIComponent(domain.domain)}`;
  const defaults = { filter: 'all', limit: 100, offset: 0, wildcard: 'include', scope: 'in' };
  const params = { ...query, offset: undefined };
  return page(
    domain.domain,
    viewer,
    undefined,
    html`<h1>${domain.domain}</h1>
      <p class="muted">
        <a href="${pageUrl('/app/programs', { platform: domain.platform })}">${domain.platform}</a>
        ${domain.program ? html` · ${domain.program}` : ''} ·
        ${domain.enabled ? 'scanning enabled' : 'scanning disabled'} · last scan ${when(domain.last_scanned_at)}
        ${domain.last_scan_status ? `(${domain.last_scan_status})` : ''}
      </p>
      ${scanNotice(domain.domain, view.queuedSince, view.scans[0]?.status === 'running')}
      <section>
        <dl class="figures">
          <div>
            <dt>Hosts</dt>
            <dd>${count(domain.stats.total)}</dd>
          </div>
          <div>
            <dt>New in 24 h</dt>
            <dd>${count(domain.stats.new_24h)}</dd>
          </div>
          <div>
            <dt>New in 7 days</dt>
            <dd>${count(domain.stats.new_7d)}</dd>
          </div>
          <div>
            <dt>Active</dt>
            <dd>${count(domain.stats.active)}</dd>
          </div>
          <div>
            <dt>Inactive</dt>
            <dd>${count(domain.stats.inactive)}</dd>
          </div>
        </dl>
        ${dayChart('bars', view.days, 'New hosts per day')}
      </section>
      <section aria-labelledby="hosts-title">
        <h2 id="hosts-title">Hosts</h2>
        <nav class="tabs" aria-label="Host filter">
          ${HOST_FILTERS.map(
            (filter) =>
              html`<a
                href="${pageUrl(path, { ...params, filter }, defaults)}"
                ${filter === query.filter ? html`aria-current="true"` : ''}
                >${FILTER_LABELS[filter]}</a
              >`,
          )}
        </nav>
        <form class="filters" method="get" action="${path}" role="search">
          ${query.filter === 'all' ? '' : html`<input type="hidden" name="filter" value="${query.filter}" />`}
          <label for="host-search">Host contains</label>
          <input id="host-search" name="search" type="text" value="${String(query.search ?? '')}" maxlength="253" />
          <label for="takeover">Takeover candidates</label>
          <select id="takeover" name="takeover">
            <option value="">Any host</option>
            <option value="true" ${query.takeover === true ? html`selected` : ''}>Only candidates</option>
          </select>
          <label for="resolves">DNS</label>
          <select id="resolves" name="resolves">
            <option value="">Any answer</option>
            <option value="true" ${query.resolves === true ? html`selected` : ''}>Resolves</option>
            <option value="false" ${query.resolves === false ? html`selected` : ''}>Does not resolve</option>
          </select>
          <label for="status">HTTP status</label>
          <input id="status" name="status" type="number" min="100" max="599" value="${String(query.status ?? '')}" />
          <label for="cname">CNAME ends with</label>
          <input id="cname" name="cname" type="text" maxlength="253" value="${String(query.cname ?? '')}" />
          <label for="wildcard">Wildcard hosts</label>
          <select id="wildcard" name="wildcard">
            ${WILDCARD_MODES.map(
              (mode) =>
                html`<option
                  value="${mode}"
                  ${mode === query.wildcard ? html`selected` : ''}
                  ${mode === 'include' ? html`data-default` : ''}
                >
                  ${WILDCARD_LABELS[mode]}
                </option>`,
            )}
          </select>
          <label for="scope">Scope</label>
          <select id="scope" name="scope">
            ${SCOPE_MODES.map(
              (mode) =>
                html`<option
                  value="${mode}"
                  ${mode === query.scope ? html`selected` : ''}
                  ${mode === 'in' ? html`data-default` : ''}
                >
                  ${SCOPE_LABELS[mode]}
                </option>`,
            )}
          </select>
          <button type="submit">Filter</button>
        </form>
        ${hostTable(view.hosts, true)}
        ${pager(path, params, defaults, { ...query, total: view.total, shown: view.hosts.length })}
      </section>
      <section id="scans" aria-labelledby="scans-title">
        <h2 id="scans-title">Scans</h2>
        ${
          viewer.canWrite
            ? html`<form method="post" action="${path}/scans" class="queue">
                <input type="hidden" name="_csrf" value="${viewer.csrf}" />
                <button type="submit">Queue a scan</button>
              </form>`
            : ''
        }
        ${
          view.scans.length
            ? html`<div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Started</th>
                      <th scope="col">Trigger</th>
                      <th scope="col">Status</th>
                      <th scope="col">Found</th>
                      <th scope="col">New</th>
                      <th scope="col">Took</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${view.scans.map(
                      (s) =>
                        html`<tr>
                          <td>${when(s.started_at)}</td>
                          <td>${s.trigger}</td>
                          <td>
                            ${s.status}${s.error ? html` <span class="muted">${s.error.slice(0, 200)}</span>` : ''}
                          </td>
                          <td class="num">${count(s.found_count)}</td>
                          <td class="num">${count(s.new_count)}</td>
                          <td>${s.duration_ms === null ? '—' : `${(s.duration_ms / 1000).toFixed(1)} s`}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="muted">No scan yet.</p>`
        }
      </section>`,
  );
}

function hostTable(hosts: (DomainHostDto | SearchHostDto)[], ofDomain: boolean): Html {
  if (!hosts.length) return html`<p class="muted">No host matches.</p>`;
  return html`<div class="scroll">
    <table class="hosts">
      <thead>
        <tr>
          <th scope="col">Host</th>
          ${ofDomain ? '' : html`<th scope="col">Domain</th>`}
          <th scope="col">First seen</th>
          <th scope="col">State</th>
          <th scope="col">Addresses</th>
          <th scope="col">HTTP</th>
          <th scope="col">Flags</th>
        </tr>
      </thead>
      <tbody>
        ${hosts.map(
          (h) =>
            html`<tr>
              <td>${hostLink(h.host)}</td>
              ${'domain' in h && !ofDomain ? html`<td>${domainLink(h.domain)}</td>` : ''}
              <td>${when(h.first_seen_at)}</td>
              <td>${h.is_active ? 'active' : html`<span class="muted">inactive</span>`}</td>
              ${knowledge(h)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export interface SearchView {
  q: string;
  hosts: SearchHostDto[];
  limit: number;
  offset: number;
  /** Why there are no results to show (a term too short), if so. */
  problem?: string;
}

export function searchPage(viewer: Viewer, view?: SearchView): string {
  if (!view) return page('Search', viewer, '/app/search', noKeys());
  return page(
    'Search',
    viewer,
    '/app/search',
    html`<h1>Search</h1>
      <section>
        <form method="get" action="/app/search" role="search" data-live-search>
          <label for="q">Host name contains</label>
          <input
            id="q"
            name="q"
            type="search"
            value="${view.q}"
            minlength="2"
            maxlength="253"
            autocomplete="off"
            autofocus
          />
          <button type="submit">Search</button>
        </form>
        <div id="results" aria-live="polite">
          ${
            view.problem
              ? html`<p class="muted">${view.problem}</p>`
              : html`${hostTable(view.hosts, false)}
                ${pager(
                  '/app/search',
                  { q: view.q, limit: view.limit },
                  { limit: 100, offset: 0 },
                  { ...view, shown: view.hosts.length },
                )}`
          }
        </div>
      </section>`,
  );
}

/** One change of a host's history in words. */
function change(event: HostEventDto): string {
  const after = (event.after ?? {}) as Partial<
    DnsAnswerDto & HttpChangeDto & TakeoverDto & WildcardZoneDto & ScopeChangeDto
  >;
  switch (event.type) {
    case 'host_new':
      return 'first seen';
    case 'host_back':
      return 'seen again';
    case 'host_gone':
      return 'no longer seen';
    case 'dns_changed':
      return `DNS ${after.status ?? 'changed'}: ${[...(after.a ?? []), ...(after.aaaa ?? []), ...(after.cname ?? [])].join(', ') || 'no address'}`;
    case 'http_changed':
      return after.listening ? `HTTP ${after.status ?? ''} ${after.title ?? ''}` : 'HTTP: nothing listens';
    case 'takeover_candidate':
      return `takeover candidate: ${after.service ?? ''} (${after.evidence ?? ''})`;
    case 'wildcard_detected':
      return `under the wildcard ${after.zone ?? ''}`;
    case 'scope_changed':
      return after.in_scope ? 'back in scope' : 'out of scope';
  }
}

/** GET /hosts/{host}'s answer (sources as the query gives them). */
export type HostDetail = Omit<HostDetailDto, 'sources'> & { sources: string[] };

export function hostPage(viewer: Viewer, name: string, host?: HostDetail): string {
  if (!host) return page(name, viewer, undefined, noKeys());
  const { dns, http, takeover } = host;
  return page(
    host.host,
    viewer,
    undefined,
    html`<h1>${host.host}</h1>
      <p class="muted">
        ${domainLink(host.domain)} · ${host.platform} · ${host.is_active ? 'active' : 'inactive'}
        ${host.wildcard ? html` · <span class="badge">wildcard</span>` : ''}
        ${host.in_scope ? '' : html` · <span class="badge warn">out of scope</span>`}
      </p>
      ${
        takeover
          ? html`<p class="notice error" role="status">
              Takeover candidate: ${takeover.service} (${takeover.status}), ${takeover.evidence}.
            </p>`
          : ''
      }
      <section>
        <h2>Record</h2>
        <dl class="pairs">
          <dt>First seen</dt>
          <dd>${when(host.first_seen_at)}</dd>
          <dt>Last seen</dt>
          <dd>${when(host.last_seen_at)}</dd>
          <dt>Sources</dt>
          <dd>${host.sources.join(', ')}</dd>
        </dl>
      </section>
      <section>
        <h2>DNS</h2>
        ${
          dns
            ? html`<dl class="pairs">
                <dt>Answer</dt>
                <dd>${dns.status} <span class="muted">at ${when(dns.resolved_at)}</span></dd>
                <dt>A</dt>
                <dd>${dns.a.join(', ') || '—'}</dd>
                <dt>AAAA</dt>
                <dd>${dns.aaaa.join(', ') || '—'}</dd>
                <dt>CNAME</dt>
                <dd>${dns.cname.join(' → ') || '—'}</dd>
              </dl>`
            : html`<p class="muted">Not resolved yet.</p>`
        }
      </section>
      <section>
        <h2>HTTP</h2>
        ${
          http
            ? http.listening
              ? html`<dl class="pairs">
                  <dt>Answer</dt>
                  <dd>${http.status ?? '—'} on ${http.scheme}:${http.port}</dd>
                  <dt>Title</dt>
                  <dd>${http.title ?? '—'}</dd>
                  <dt>Server</dt>
                  <dd>${http.server ?? '—'}</dd>
                  <dt>Final URL</dt>
                  <dd class="url">${http.final_url ?? '—'}</dd>
                  <dt>Length</dt>
                  <dd>${http.content_length ?? '—'}</dd>
                  ${
                    http.tls
                      ? html`<dt>Certificate</dt>
                          <dd>${http.tls.subject}, by ${http.tls.issuer}, until ${when(http.tls.not_after)}</dd>`
                      : ''
                  }
                  <dt>Probed</dt>
                  <dd>${when(http.probed_at)}</dd>
                </dl>`
              : html`<p class="muted">Nothing listens (probed ${when(http.probed_at)}).</p>`
            : html`<p class="muted">Not probed yet.</p>`
        }
      </section>
      <section>
        <h2>History</h2>
        <ol class="history">
          ${host.history.map((e) => html`<li><time datetime="${e.at}">${when(e.at)}</time> ${change(e)}</li>`)}
        </ol>
      </section>`,
  );
}
