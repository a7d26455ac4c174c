import { type Html, html } from '../../html.js';

/** A time to the minute, UTC: a Date, or an ISO 8601 string as the queries give it. */
export const when = (d: Date | string | null) =>
  d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—';

/** A table with a head row of `headers` and the rows given. */
export function table(headers: string[], rows: Html[]): Html {
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
