import { EVENT_TYPES } from '../../../events/dto/events.query.js';
import { maskUrl, WEBHOOK_FORMATS } from '../../../notify/webhook-payload.js';
import type { DeliveryRow } from '../../../notify/delivery.model.js';
import { type WebhookRow, webhookState } from '../../../notify/webhooks.repository.js';
import { type Html, html } from '../../html.js';
import type { PageUser } from '../../layout.js';
import { table, when } from './parts.js';

// The markup marked `prettier-ignore` keeps the indentation it has in the page it belongs to: Prettier would
// indent it by where it sits in this file, and that whitespace is part of the HTML sent.

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

function outcome(d: DeliveryRow): string {
  const answer = d.error ?? (d.http_status !== null ? `HTTP ${d.http_status}` : '');
  const took = d.duration_ms !== null ? `, ${d.duration_ms} ms` : '';
  return `${d.status.replace('_', ' ')}${answer ? ` (${answer}${took})` : ''}`;
}

export function webhooksSection(user: PageUser, view: WebhooksView): Html {
  const rows = view.webhooks.map(({ webhook, deliveries }) => webhookRows(user, webhook, deliveries));
  // prettier-ignore
  return html`<section id="webhooks">
    <h1>Your webhooks</h1>
    ${view.created ? createdNotice(view.created) : ''}
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
    ${addWebhookForm(user)}
  </section>`;
}

/** A webhook made just now: its URL and secret, this once. */
function createdNotice(created: CreatedWebhook): Html {
  // prettier-ignore
  return html`<p class="notice" role="alert">
              Webhook added. Copy its URL and secret now: this is the only time they are shown.
            </p>
            <label for="new-webhook-url">URL</label>
            <input id="new-webhook-url" class="secret" type="text" readonly value="${created.url}" />
            ${
              created.secret
                ? html`<label for="new-webhook-secret">Signing secret</label>
                    <div class="secret-row">
                      <input
                        id="new-webhook-secret"
                        class="secret"
                        type="text"
                        readonly
                        value="${created.secret}"
                      />
                      <button type="button" data-copy="new-webhook-secret" hidden>Copy</button>
                    </div>`
                : ''
            }`;
}

/** A webhook as two rows of the table: its settings and state, then its last deliveries. */
function webhookRows(user: PageUser, w: WebhookRow, deliveries: DeliveryRow[]): Html {
  // prettier-ignore
  return html`<tr data-webhook="${w.id}">
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
              ${deliveries.length ? deliveryList(user, w.id, deliveries) : html`<p class="muted">None yet.</p>`}
            </details>
          </td>
        </tr>`;
}

/** A webhook's last deliveries, each with a button that sends it again. */
function deliveryList(user: PageUser, webhookId: string, deliveries: DeliveryRow[]): Html {
  // prettier-ignore
  return html`<div class="scroll">
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
                                  <form method="post" action="/account/webhooks/${webhookId}/deliveries/${d.id}/retry">
                                    <input type="hidden" name="_csrf" value="${user.csrf}" />
                                    <button class="link" type="submit">Send again</button>
                                  </form>
                                </td>
                              </tr>`,
                          )}
                        </tbody>
                      </table>
                    </div>`;
}

/** The form that adds a webhook. */
function addWebhookForm(user: PageUser): Html {
  // prettier-ignore
  return html`<form method="post" action="/account/webhooks">
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
    </form>`;
}
