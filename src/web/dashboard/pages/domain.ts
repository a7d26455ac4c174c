import { type Html, html } from '../../html.js';
import type { ScanDto } from '../../../discovery/dto/scan.dto.js';
import type { DomainDetailDto } from '../../../domains/dto/domain.dto.js';
import { HOST_FILTERS } from '../../../hosts/dto/host-queries.js';
import type { DomainHostDto } from '../../../hosts/dto/host.dto.js';
import type { DayCount } from '../../../stats/stats.repository.js';
import { dayChart } from './chart.js';
import { FILTER_LABELS, hostFilters, type HostListQuery } from './filters.js';
import { count, noKeys, page, type Viewer, when } from './page.js';
import { pager, pageUrl } from './pager.js';
import { hostTable } from './tables.js';

// The markup marked `prettier-ignore` keeps the indentation it has in the page it belongs to: Prettier would
// indent it by where it sits in this file, and that whitespace is part of the HTML sent.

export interface DomainView {
  domain: DomainDetailDto;
  hosts: DomainHostDto[];
  total: number;
  /** The host list's query, as the URL gives it. */
  query: HostListQuery;
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
  const { domain } = view;
  const path = `/app/domains/${encodeURIComponent(domain.domain)}`;
  // prettier-ignore
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
      ${figuresSection(view)}
      ${hostsSection(view, path)}
      ${scansSection(viewer, view, path)}`,
  );
}

/** The domain's figures and its new hosts per day. */
function figuresSection(view: DomainView): Html {
  const { domain } = view;
  // prettier-ignore
  return html`<section>
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
      </section>`;
}

/** The domain's hosts: filter tabs, the filter form, one page of the list. */
function hostsSection(view: DomainView, path: string): Html {
  const { query } = view;
  const defaults = { filter: 'all', limit: 100, offset: 0, wildcard: 'include', scope: 'in' };
  const params = { ...query, offset: undefined };
  // prettier-ignore
  return html`<section aria-labelledby="hosts-title">
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
        ${hostFilters(query, path)}
        ${hostTable(view.hosts, true)}
        ${pager(path, params, defaults, { ...query, total: view.total, shown: view.hosts.length })}
      </section>`;
}

/** The domain's scans, with the button that queues one for an owner who may write. */
function scansSection(viewer: Viewer, view: DomainView, path: string): Html {
  // prettier-ignore
  return html`<section id="scans" aria-labelledby="scans-title">
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
      </section>`;
}
