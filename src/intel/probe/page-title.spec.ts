import { titleOf } from './page-title.js';

/** Milliseconds a call takes. */
const timed = (f: () => unknown) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

describe('titleOf', () => {
  it('decodes named, decimal and hexadecimal references with the full HTML table', () => {
    expect(titleOf('<title>Caf&eacute; &mdash; &copy; &hellip;</title>')).toBe('Café — © …');
    expect(titleOf('<html><TITLE lang="en">\n  Caf&eacute; &amp; Bar &#x2014; &#169;\t2026 </TITLE>')).toBe(
      'Café & Bar — © 2026',
    );
    expect(titleOf('<title>&Auml;rger &NotEqualTilde; &ngE; &zwj;&nbsp;&lt;b&gt;</title>')).toBe(
      'Ärger ≂̸ ≧̸ \u200d <b>',
    );
    // As a browser shows them: a reference to nothing is U+FFFD, an unknown name stays as written.
    expect(titleOf('<title>&#0;&#x110000;ok &bogus;</title>')).toBe('\ufffd\ufffdok &bogus;');
  });

  it('drops control and bidi-override characters, also when written as references, and keeps at most 200', () => {
    expect(titleOf('<title>a\u001b[31mred\u0007\u202eevil</title>')).toBe('a[31mredevil');
    expect(titleOf('<title>a&#x1b;b&#x202e;c</title>')).toBe('abc');
    expect(titleOf(`<title>${'x'.repeat(500)}</title>`)).toHaveLength(200);
  });

  it('finds the title tag whatever its case, attributes and end-tag spacing, and only a whole <title> tag', () => {
    expect(titleOf('<TiTlE data-x="1" class=a>Shop</tItLe >')).toBe('Shop');
    expect(titleOf('<titles>no</titles><title>yes</title>')).toBe('yes');
    expect(titleOf('<title>a</titlex> b</title>')).toBe('a</titlex> b');
    expect(titleOf('<title\n>multi\nline</title\t>')).toBe('multi line');
  });

  it('is null without a title, with an empty one, or with one never closed', () => {
    expect(titleOf('<html><body>no title</body></html>')).toBeNull();
    expect(titleOf('<title>   </title>')).toBeNull();
    expect(titleOf('<title>unclosed')).toBeNull();
    expect(titleOf('<title')).toBeNull();
    expect(titleOf('<title data-x="never ends')).toBeNull();
  });

  // Sizes at which a backtracking match (the old /<title[^>]*>([\s\S]*?)<\/title\s*>/i) takes minutes:
  // each of the ~10^5 starts rescans the rest. A scan that only moves forward takes milliseconds.
  it.each([
    ['"<title" repeated', '<title'.repeat(200_000)],
    ['"<title>" repeated, never closed', '<title>'.repeat(200_000)],
    ['a huge attribute list', `<title ${'a=b '.repeat(300_000)}`],
    ['"</title" without its >', `<title>x${'</title'.repeat(150_000)}`],
    ['"<" repeated', `<title>${'<'.repeat(1_000_000)}`],
  ])('stays linear on %s', (_name, page) => {
    expect(page.length).toBeGreaterThan(1_000_000);
    let title: string | null = 'unset';
    const ms = timed(() => (title = titleOf(page)));
    expect(title).toBeNull();
    expect(ms).toBeLessThan(1000);
  });

  it('reads a title behind a megabyte of hostile markup', () => {
    expect(titleOf(`${'<titl'.repeat(200_000)}<title lang=en>ok</title>`)).toBe('ok');
  });
});
