import { versioned } from '../../assets.js';
import { type Html, html } from '../../html.js';
import { layout, type NavPath, type PageUser } from '../../layout.js';
import { DASHBOARD_JS, UPLOT_CSS, UPLOT_JS } from '../assets.js';

/** The signed-in owner as the dashboard shows them: who, and what their keys may do. */
export interface Viewer extends PageUser {
  canRead: boolean;
  canWrite: boolean;
}

const SCRIPTS = [versioned('/app/uplot.js', UPLOT_JS), versioned('/app/app.js', DASHBOARD_JS)];
const STYLES = [versioned('/app/uplot.css', UPLOT_CSS)];

/** A time to the minute, UTC; "—" for none. */
export const when = (at: string | null | undefined) => (at ? `${at.replace('T', ' ').slice(0, 16)} UTC` : '—');
export const count = (n: number) => n.toLocaleString('en-US');

/** Links to a host's and a domain's page. */
export const hostLink = (host: string) => html`<a href="/app/hosts/${encodeURIComponent(host)}">${host}</a>`;
export const domainLink = (domain: string) => html`<a href="/app/domains/${encodeURIComponent(domain)}">${domain}</a>`;

/** A dashboard page: the layout, with the dashboard's script and uPlot's. */
export function page(title: string, viewer: Viewer, current: NavPath | undefined, body: Html): string {
  return layout(title, body, { user: viewer, current, scripts: SCRIPTS, styles: STYLES });
}

/** What an owner without an active key sees in place of the data. */
export function noKeys(): Html {
  return html`<section>
    <p class="notice" role="status">
      The dashboard shows what your API keys can read, and you have no active key.
      <a href="/account">Create one on your account page</a>.
    </p>
  </section>`;
}
