import { titleOf } from './http-probe.js';

describe('titleOf', () => {
  it('decodes entities and collapses whitespace', () => {
    expect(titleOf('<html><TITLE lang="en">\n  Caf&eacute; &amp; Bar &#x2014; &#169;\t2026 </TITLE>')).toBe(
      'Caf&eacute; & Bar — © 2026',
    );
  });

  it('drops control and bidi-override characters, and keeps at most 200 characters', () => {
    expect(titleOf('<title>a\u001b[31mred\u0007\u202eevil</title>')).toBe('a[31mredevil');
    expect(titleOf(`<title>${'x'.repeat(500)}</title>`)).toHaveLength(200);
    expect(titleOf('<title>&#0;&#x110000;ok</title>')).toBe('ok');
  });

  it('is null without a title, or with an empty one', () => {
    expect(titleOf('<html><body>no title</body></html>')).toBeNull();
    expect(titleOf('<title>   </title>')).toBeNull();
    expect(titleOf('<title>unclosed')).toBeNull();
  });
});
