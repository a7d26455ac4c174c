import type { ApiKeyEntity } from '../../../auth/entities/api-key.entity.js';
import { versioned } from '../../assets.js';
import { type Html, html } from '../../html.js';
import { layout, type PageUser } from '../../layout.js';
import { ACCOUNT_JS } from '../assets.js';
import { table, when } from './parts.js';
import { webhooksSection, type WebhooksView } from './webhooks.js';

// The markup marked `prettier-ignore` keeps the indentation it has in the page it belongs to: Prettier would
// indent it by where it sits in this file, and that whitespace is part of the HTML sent.

export interface CreatedKey {
  name: string;
  token: string;
}

export interface AccountExtras {
  created?: CreatedKey;
  problem?: string;
  webhooks: WebhooksView;
}

export function accountPage(user: PageUser, keys: ApiKeyEntity[], extras: AccountExtras): string {
  const { created, problem } = extras;
  const rows = keys.map((k) => keyRow(user, k));
  // prettier-ignore
  return layout(
    'Your API keys',
    html`${created ? newKeyNotice(created) : ''}
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

/** A key just made, shown this once. */
function newKeyNotice(created: CreatedKey): Html {
  // prettier-ignore
  return html`<section>
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
            </section>`;
}

/** A key as a row of the table, with the button that revokes it while it is active. */
function keyRow(user: PageUser, k: ApiKeyEntity): Html {
  // prettier-ignore
  return html`<tr class="${k.revokedAt ? 'revoked' : ''}" data-key="${k.name}">
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
      </tr>`;
}
