import { html } from './html.js';
import { layout } from './layout.js';

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
