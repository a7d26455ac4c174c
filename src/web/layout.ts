import { THEME_CSS, versioned } from './assets.js';
import { type Html, html } from './html.js';

/** The owner a page is made for: the header shows who, and every form carries their CSRF token. */
export interface PageUser {
  email: string;
  name: string | null;
  csrf: string;
}

const STYLESHEET = versioned('/account/account.css', THEME_CSS);

/** The pages a signed-in owner moves between: the dashboard's and the account page. */
export const NAV = [
  { path: '/app', label: 'Overview' },
  { path: '/app/programs', label: 'Programs' },
  { path: '/app/search', label: 'Search' },
  { path: '/account', label: 'Account' },
] as const;
export type NavPath = (typeof NAV)[number]['path'];

export interface LayoutOptions {
  user?: PageUser;
  /** The navigation entry to mark as the current page. */
  current?: NavPath;
  /** Scripts of the page besides none: each served from this origin. */
  scripts?: string[];
  /** Stylesheets besides the layout's own. */
  styles?: string[];
}

/** Every page's frame: the header with the navigation and the sign-out form once signed in, then the body. */
export function layout(title: string, body: Html, options: LayoutOptions = {}): string {
  const { user, current } = options;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · Subdomain Monitor</title>
        <link rel="stylesheet" href="${STYLESHEET}" />
        ${(options.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}" />`)}
      </head>
      <body>
        <header>
          <a class="brand" href="${user ? '/app' : '/account'}">Subdomain Monitor</a>
          ${
            user
              ? html`<nav aria-label="Main">
                    ${NAV.map(
                      (entry) =>
                        html`<a href="${entry.path}" ${entry.path === current ? html`aria-current="page"` : ''}
                          >${entry.label}</a
                        >`,
                    )}
                  </nav>
                  <form method="post" action="/account/sign-out">
                    <span class="muted">${user.name ?? user.email}</span>
                    <input type="hidden" name="_csrf" value="${user.csrf}" />
                    <button class="link" type="submit">Sign out</button>
                  </form>`
              : ''
          }
        </header>
        <main>${body}</main>
        ${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </body>
    </html> `.markup;
}
