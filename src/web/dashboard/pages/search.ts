import { html } from '../../html.js';
import type { SearchHostDto } from '../../../hosts/dto/host.dto.js';
import { noKeys, page, type Viewer } from './page.js';
import { pager } from './pager.js';
import { hostTable } from './tables.js';

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
