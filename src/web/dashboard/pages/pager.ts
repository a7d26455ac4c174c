import { type Html, html } from '../../html.js';
import { count } from './page.js';

/** A path with its query: empty values and the defaults given are left out, so links stay short and stable. */
export function pageUrl(
  path: string,
  params: Record<string, string | number | boolean | undefined | null>,
  defaults: Record<string, string | number | boolean> = {},
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '' || defaults[name] === value) continue;
    query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** Previous and next links for an offset page; the other parameters kept. */
export function pager(
  path: string,
  params: Record<string, string | number | boolean | undefined>,
  defaults: Record<string, string | number | boolean>,
  { limit, offset, total, shown }: { limit: number; offset: number; total?: number; shown: number },
): Html {
  const more = total === undefined ? shown === limit : offset + shown < total;
  const range = shown ? `${count(offset + 1)}–${count(offset + shown)}` : '0';
  return html`<nav class="pager" aria-label="Pages">
    <span class="muted">${range}${total === undefined ? '' : ` of ${count(total)}`}</span>
    ${
      offset > 0
        ? html`<a rel="prev" href="${pageUrl(path, { ...params, offset: Math.max(0, offset - limit) }, defaults)}"
            >Previous</a
          >`
        : ''
    }
    ${more ? html`<a rel="next" href="${pageUrl(path, { ...params, offset: offset + limit }, defaults)}">Next</a>` : ''}
  </nav>`;
}
