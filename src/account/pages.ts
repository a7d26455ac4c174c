import type { ApiKeyEntity } from '../auth/api-key.entity.js';
import { type Html, html } from './html.js';

export interface PageUser {
  email: string;
  name: string | null;
  csrf: string;
}

const when = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');

function layout(title: string, body: Html, user?: PageUser): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · Subdomain Monitor</title>
        <link rel="stylesheet" href="/account/account.css" />
      </head>
      <body>
        <header>
          <span class="brand">Subdomain Monitor</span>
          ${
            user
              ? html`<form method="post" action="/account/sign-out">
                  <span class="muted">${user.name ?? user.email}</span>
                  <input type="hidden" name="_csrf" value="${user.csrf}" />
                  <button class="link" type="submit">Sign out</button>
                </form>`
              : ''
          }
        </header>
        <main>${body}</main>
        <script src="/account/account.js" defer></script>
      </body>
    </html> `.markup;
}

export function signInPage(csrf: string, problem?: string, email = ''): string {
  return layout(
    'Sign in',
    html`<section>
      <h1>Sign in</h1>
      <p class="muted">Sign in to create and revoke your API keys.</p>
      ${problem ? html`<p class="notice error" role="alert">${problem}</p>` : ''}
      <form method="post" action="/account/sign-in">
        <input type="hidden" name="_csrf" value="${csrf}" />
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

export function accountPage(user: PageUser, keys: ApiKeyEntity[], created?: CreatedKey, problem?: string): string {
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
            ? html`<table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Scopes</th>
                    <th>Key</th>
                    <th>Created</th>
                    <th>Last used</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>`
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
      </section>`,
    user,
  );
}

export function errorPage(status: number, title: string, message: string, requestId: string): string {
  return layout(
    title,
    html`<section>
      <h1>${title}</h1>
      <p>${message}</p>
      <p class="muted">Status ${status} · request ${requestId}</p>
      <p><a href="/account">Back to your account</a></p>
    </section>`,
  );
}
