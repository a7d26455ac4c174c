import type { HOST_FILTERS } from '../../../hosts/dto/host-queries.js';
import { SCOPE_MODES, WILDCARD_MODES } from '../../../hosts/model/knowledge-filter.js';
import { type Html, html } from '../../html.js';

// The markup marked `prettier-ignore` keeps the indentation it has in the page it belongs to: Prettier would
// indent it by where it sits in this file, and that whitespace is part of the HTML sent.

export const FILTER_LABELS: Record<(typeof HOST_FILTERS)[number], string> = {
  all: 'All',
  new: 'New (24 h)',
  active: 'Active',
  inactive: 'Inactive',
};

export const WILDCARD_LABELS: Record<(typeof WILDCARD_MODES)[number], string> = {
  include: 'Shown',
  exclude: 'Left out',
  only: 'Only them',
};
export const SCOPE_LABELS: Record<(typeof SCOPE_MODES)[number], string> = {
  in: 'In scope',
  out: 'Out of scope',
  all: 'Both',
};

/** A host list's query (a domain's hosts), as the URL gives it. */
export type HostListQuery = Record<string, string | number | boolean | undefined> & {
  filter: string;
  limit: number;
  offset: number;
};

/** The form that narrows a domain's hosts; the tab's filter kept. */
export function hostFilters(query: HostListQuery, path: string): Html {
  // prettier-ignore
  return html`<form class="filters" method="get" action="${path}" role="search">
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
        </form>`;
}
