import type { ApiKeyEntity } from '../../auth/entities/api-key.entity.js';
import { EVENT_TYPES } from '../../events/dto/events.query.js';
import { maskUrl, WEBHOOK_FORMATS } from '../../notify/webhook-payload.js';
import { type DeliveryRow, type WebhookRow, webhookState } from '../../notify/webhooks.repository.js';
import { ACCOUNT_CSS, ACCOUNT_JS, versioned } from './assets.js';
import { type Html, html } from '../html.js';

export interface PageUser {
  email: string;
  name: string | null;
  csrf: string;
}

/** A time to the minute, UTC: a Date, or an ISO 8601 string as the queries give it. */
const when = (d: Date | string | null) => (d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');

const STYLESHEET = versioned('/account/account.css', ACCOUNT_CSS);

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

/** The sign-in form; `next` is the page of this service to go on to once signed in. */
export function signInPage(csrf: string, problem?: string, email = '', next?: string): string {
  return layout(
    'Sign in',
    html`<section>
      <h1>Sign in</h1>
      <p class="muted">Sign in to follow your programs and to create and revoke your API keys.</p>
      ${problem ? html`<p class="notice error" role="alert">${problem}</p>` : ''}
      <form method="post" action="/account/sign-in">
        <input type="hidden" name="_csrf" value="${csrf}" />
        ${next ? html`<input type="hidden" name="next" value="${next}" />` : ''}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" />
        <p><button type="submit">Sign in</button></p>
      </form>
    </section>`,
  );
}

export interface CreatedKey {
  name: string;
  token: string;
}

/** A webhook just made: its whole URL and its secret, shown this once. */
export interface CreatedWebhook {
  url: string;
  secret: string | null;
}

/** The webhooks section: the user's webhooks with their last deliveries, and what the last form did. */
export interface WebhooksView {
  webhooks: { webhook: WebhookRow; deliveries: DeliveryRow[] }[];
  created?: CreatedWebhook;
  /** The outcome of a test delivery just sent. */
  tested?: { url: string; delivery: DeliveryRow };
  problem?: string;
}

/** Deliveries each webhook shows on the page (the API lists 100). */
export const DELIVERIES_SHOWN = 10;

/** A table with a head row of `headers` and the rows given. */
function table(headers: string[], rows: Html[]): Html {
  return html`<div class="scroll">
    <table>
      <thead>
        <tr>
          ${headers.map((h) => html`<th>${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

function outcome(d: DeliveryRow): string {
  const answer = d.error ?? (d.http_status !== null ? `HTTP ${d.http_status}` : '');
  const took = d.duration_ms !== null ? `, ${d.duration_ms} ms` : '';
  return `${d.status.replace('_', ' ')}${answer ? ` (${answer}${took})` : ''}`;
}

function webhooksSection(user: PageUser, view: WebhooksView): Html {
  const rows = view.webhooks.map(
    ({ webhook: w, deliveries }) =>
      html`<tr data-webhook="${w.id}">
          <td><code>${maskUrl(w.url)}</code></td>
          <td>${w.format}</td>
          <td>
            ${w.domains?.join(', ') ?? (w.platforms ? w.platforms.join(', ') : 'all domains')}
            ${w.scope !== 'in' ? html`<span class="badge">scope ${w.scope}</span>` : ''}
            ${w.digest_minutes ? html`<span class="badge">digest ${w.digest_minutes} min</span>` : ''}
          </td>
          <td>${w.types.join(', ')}</td>
          <td class="state">
            ${webhookState(w) === 'paused' ? html`<span class="badge warn">paused</span>` : webhookState(w)}
            <span class="muted">${w.last_status ?? w.last_error ?? ''}</span>
          </td>
          <td>
            <form method="post" action="/account/webhooks/${w.id}/test">
              <input type="hidden" name="_csrf" value="${user.csrf}" />
              <button class="link" type="submit">Send test</button>
            </form>
            <form method="post" action="/account/webhooks/${w.id}/remove">
              <input type="hidden" name="_csrf" value="${user.csrf}" />
              <button class="danger" type="submit" aria-label="Remove ${maskUrl(w.url)}">Remove</button>
            </form>
          </td>
        </tr>
        <tr class="deliveries" data-deliveries="${w.id}">
          <td colspan="6">
            <details>
              <summary>Last deliveries (${deliveries.length})</summary>
              ${
                deliveries.length
                  ? html`<div class="scroll">
                      <table>
                        <tbody>
                          ${deliveries.map(
                            (d) =>
                              html`<tr data-delivery="${d.id}">
                                <td>${when(d.created_at)}</td>
                                <td>${d.kind.replace('_', ' ')}</td>
                                <td>${d.event_count}</td>
                                <td class="outcome">${outcome(d)}</td>
                                <td>
                                  <form method="post" action="/account/webhooks/${w.id}/deliveries/${d.id}/retry">
                                    <input type="hidden" name="_csrf" value="${user.csrf}" />
                                    <button class="link" type="submit">Send again</button>
                                  </form>
                                </td>
                              </tr>`,
                          )}
                        </tbody>
                      </table>
                    </div>`
                  : html`<p class="muted">None yet.</p>`
              }
            </details>
          </td>
        </tr>`,
  );
  return html`<section id="webhooks">
    <h1>Your webhooks</h1>
    ${
      view.created
        ? html`<p class="notice" role="alert">
              Webhook added. Copy its URL and secret now: this is the only time they are shown.
            </p>
            <label for="new-webhook-url">URL</label>
            <input id="new-webhook-url" class="secret" type="text" readonly value="${view.created.url}" />
            ${
              view.created.secret
                ? html`<label for="new-webhook-secret">Signing secret</label>
                    <div class="secret-row">
                      <input
                        id="new-webhook-secret"
                        class="secret"
                        type="text"
                        readonly
                        value="${view.created.secret}"
                      />
                      <button type="button" data-copy="new-webhook-secret" hidden>Copy</button>
                    </div>`
                : ''
            }`
        : ''
    }
    ${
      view.tested
        ? html`<p class="notice" role="status" data-tested="${view.tested.delivery.status}">
            Test to <code>${view.tested.url}</code>: ${outcome(view.tested.delivery)}
          </p>`
        : ''
    }
    ${
      view.webhooks.length
        ? table(['URL', 'Format', 'For', 'Types', 'State', ''], rows)
        : html`<p class="muted">You have no webhooks yet.</p>`
    }
    <h2>Add a webhook</h2>
    ${view.problem ? html`<p class="notice error" role="alert">${view.problem}</p>` : ''}
    <form method="post" action="/account/webhooks">
      <input type="hidden" name="_csrf" value="${user.csrf}" />
      <label for="webhook-url">URL</label>
      <input
        id="webhook-url"
        name="url"
        type="text"
        required
        maxlength="2048"
        placeholder="https://hooks.slack.com/services/… or mailto:you@example.com"
      />
      <label for="webhook-format">Format</label>
      <select id="webhook-format" name="format">
        ${WEBHOOK_FORMATS.map((f) => html`<option value="${f}">${f}</option>`)}
      </select>
      <label for="webhook-chat">Telegram chat id</label>
      <input id="webhook-chat" name="chat_id" type="text" maxlength="40" placeholder="-1001234567890 (telegram only)" />
      <label for="webhook-platforms">Platforms</label>
      <input id="webhook-platforms" name="platforms" type="text" placeholder="all, or: hackerone, bugcrowd" />
      <label for="webhook-domains">Domains</label>
      <input id="webhook-domains" name="domains" type="text" placeholder="all, or: example.com, example.org" />
      <fieldset>
        <legend class="muted">Changes to hear of</legend>
        ${EVENT_TYPES.map(
          (type) =>
            html`<label
              ><input type="checkbox" name="types" value="${type}" ${type === 'host_new' ? 'checked' : ''} />
              ${type}</label
            >`,
        )}
      </fieldset>
      <label for="webhook-scope">Scope</label>
      <select id="webhook-scope" name="scope">
        <option value="in">in scope</option>
        <option value="out">out of scope only</option>
        <option value="all">all</option>
      </select>
      <label for="webhook-digest">Digest every … minutes</label>
      <input id="webhook-digest" name="digest_minutes" type="number" min="1" max="10080" placeholder="as they come" />
      <fieldset>
        <label><input type="checkbox" name="resolving_only" value="on" /> digests: resolving hosts only</label>
      </fieldset>
      <button type="submit">Add webhook</button>
    </form>
  </section>`;
}

export interface AccountExtras {
  created?: CreatedKey;
  problem?: string;
  webhooks: WebhooksView;
}

export function accountPage(user: PageUser, keys: ApiKeyEntity[], extras: AccountExtras): string {
  const { created, problem } = extras;
  const rows = keys.map(
    (k) =>
      html`<tr class="${k.revokedAt ? 'revoked' : ''}" data-key="${k.name}">
        <td class="name">${k.name}</td>
        <td>${k.scopes.map((s) => html`<span class="badge">${s}</span> `)}</td>
        <td><code>${k.keyHint}</code></td>
        <td>${when(k.createdAt)}</td>
        <td>${when(k.lastUsedAt)}</td>
        <td>
          ${
            k.revokedAt
              ? html`Revoked ${when(k.revokedAt)}`
              : html`<form method="post" action="/account/tokens/${k.id}/revoke">
                  <input type="hidden" name="_csrf" value="${user.csrf}" />
                  <button class="danger" type="submit" aria-label="Revoke ${k.name}">Revoke</button>
                </form>`
          }
        </td>
      </tr>`,
  );
  return layout(
    'Your API keys',
    html`${
        created
          ? html`<section>
              <h1>Your new key “${created.name}”</h1>
              <p class="notice" role="alert">
                Copy it now: this is the only time it is shown. Only a hash of it is stored, so it cannot be shown
                again.
              </p>
              <div class="secret-row">
                <input
                  id="new-key"
                  class="secret"
                  type="text"
                  readonly
                  value="${created.token}"
                  aria-label="New API key"
                />
                <button type="button" data-copy="new-key" hidden>Copy</button>
              </div>
              <p class="muted">
                Send it as <code>Authorization: Bearer &lt;key&gt;</code> or <code>X-API-Key: &lt;key&gt;</code>.
              </p>
            </section>`
          : ''
      }
      <section>
        <h1>Your API keys</h1>
        ${
          keys.length
            ? table(['Name', 'Scopes', 'Key', 'Created', 'Last used', ''], rows)
            : html`<p class="muted">You have no keys yet.</p>`
        }
      </section>
      <section>
        <h2>Create a key</h2>
        ${problem ? html`<p class="notice error" role="alert">${problem}</p>` : ''}
        <form method="post" action="/account/tokens">
          <input type="hidden" name="_csrf" value="${user.csrf}" />
          <label for="name">Name</label>
          <input id="name" name="name" type="text" required maxlength="100" placeholder="laptop, ci, recon-box" />
          <fieldset>
            <legend class="muted">Scope</legend>
            <label><input type="radio" name="scope" value="read" checked /> read</label>
            <label><input type="radio" name="scope" value="write" /> read and write (queue scans)</label>
          </fieldset>
          <button type="submit">Create key</button>
        </form>
      </section>
      ${webhooksSection(user, extras.webhooks)}`,
    { user, current: '/account', scripts: [versioned('/account/account.js', ACCOUNT_JS)] },
  );
}

/** A refusal or failure as a page; `dashboard` when it answers a page of /app, which it then links back to. */
export function errorPage(
  status: number,
  title: string,
  message: string,
  requestId: string,
  dashboard = false,
): string {
  return layout(
    title,
    html`<section>
      <h1>${title}</h1>
      <p>${message}</p>
      <p class="muted">Status ${status} · request ${requestId}</p>
      <p>
        ${dashboard ? html`<a href="/app">Back to the dashboard</a>` : html`<a href="/account">Back to your account</a>`}
      </p>
    </section>`,
  );
}
