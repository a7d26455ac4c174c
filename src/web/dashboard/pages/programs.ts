import { type Html, html } from '../../html.js';
import type { DomainDto } from '../../../domains/dto/domain.dto.js';
import { DOMAIN_SORTS, type DomainSort } from '../../../domains/dto/list-domains.query.js';
import { PLATFORM_SLUGS } from '../../../platforms/platform-slugs.js';
import { count, domainLink, noKeys, page, type Viewer, when } from './page.js';
import { pager, pageUrl } from './pager.js';

// The markup marked `prettier-ignore` keeps the indentation it has in the page it belongs to: Prettier would
// indent it by where it sits in this file, and that whitespace is part of the HTML sent.

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
        ${programFilters(view.query)}
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
              ${view.domains.map((d) => programRow(d))}
            </tbody>
          </table>
        </div>
        ${view.domains.length ? '' : html`<p class="muted">No tracked domain matches.</p>`}
        ${pager('/app/programs', params, defaults, { ...query, total: view.total, shown: view.domains.length })}
      </section>`,
  );
}

/** The form that narrows the programs; the sort kept. */
function programFilters(query: ProgramsView['query']): Html {
  // prettier-ignore
  return html`<form class="filters" method="get" action="/app/programs" role="search">
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
        </form>`;
}

/** A tracked domain as a row of the programs table. */
function programRow(d: DomainDto): Html {
  // prettier-ignore
  return html`<tr>
                    <td>${domainLink(d.domain)}</td>
                    <td>${d.platform}</td>
                    <td>${d.program ?? '—'}</td>
                    <td class="num">${count(d.total_subdomains)}</td>
                    <td class="num">${count(d.new_subdomains_last_scan)}</td>
                    <td>${when(d.last_scanned_at)}</td>
                    <td>
                      ${d.enabled ? (d.last_scan_status ?? 'not scanned yet') : html`<span class="badge">disabled</span>`}
                    </td>
                  </tr>`;
}
