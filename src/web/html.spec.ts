import fc from 'fast-check';
import { escapeHtml, html } from './html.js';

describe('html', () => {
  it('escapes interpolated text and attribute values, not nested html', () => {
    const name = `<script>alert("x")</script>'&`;
    const nested = html`<b>ok</b>`;
    // prettier-ignore
    const cell = html`<td title="${name}">${name}</td>${nested}`;
    expect(cell.markup).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;</td><b>ok</b>',
    );
  });

  it('joins arrays and leaves out null, undefined and false', () => {
    expect(html`${['a', html`<i>b</i>`]}${null}${undefined}${false}${0}`.markup).toBe('a<i>b</i>0');
  });

  it('never lets any string open a tag or leave a quoted attribute', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = escapeHtml(s);
        expect(out).not.toMatch(/[<>"']/);
        expect(out.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
      }),
    );
  });
});
