import { charsetInContent, decodeBody } from './page-charset.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

describe('decodeBody', () => {
  const page = (head: string) => latin1(`<html><head>${head}<title>Caf\u00e9 M\u00fcnchen</title></head></html>`);

  it("reads the charset of Content-Type, with the Encoding Standard's labels", () => {
    const body = page('');
    expect(decodeBody(body, 'text/html; charset=ISO-8859-1')).toContain('Café München');
    expect(decodeBody(body, 'text/html;charset="latin1"')).toContain('Café München');
    expect(decodeBody(body, 'text/html; charset=windows-1252')).toContain('Café München');
    // The Encoding Standard reads latin1 as windows-1252: 0x80 is the euro sign, not a C1 control.
    expect(decodeBody(latin1('\x80 5'), 'text/plain; charset=iso-8859-1')).toBe('€ 5');
    expect(decodeBody(Buffer.from([0xcf, 0xf0, 0xe8]), 'text/html; charset=windows-1251')).toBe('При');
    expect(decodeBody(Buffer.from([0x93, 0xfa, 0x96, 0x7b]), 'text/html; charset=Shift_JIS')).toBe('日本');
  });

  it('reads <meta charset> and <meta http-equiv=Content-Type> in the first 1024 bytes', () => {
    expect(decodeBody(page('<meta charset="iso-8859-1">'), 'text/html')).toContain('Café München');
    expect(decodeBody(page("<META CHARSET='latin1'/>"), undefined)).toContain('Café München');
    expect(decodeBody(page('<meta charset=windows-1252>'), undefined)).toContain('Café München');
    expect(
      decodeBody(page('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'), undefined),
    ).toContain('Café München');
    expect(decodeBody(page('<meta content="text/html;charset=latin1" http-equiv=content-type>'), undefined)).toContain(
      'Café München',
    );
    // Past 1024 bytes, a declaration is not looked for: UTF-8, as a browser's prescan does.
    const late = latin1(`${' '.repeat(1024)}<meta charset="iso-8859-1"><title>Caf\u00e9</title>`);
    expect(decodeBody(late, undefined)).toContain('Caf\ufffd');
  });

  it('lets Content-Type win over <meta>, and a byte order mark over both', () => {
    const utf8 = Buffer.from('<meta charset="iso-8859-1"><title>Café</title>', 'utf8');
    expect(decodeBody(utf8, 'text/html; charset=utf-8')).toContain('Café');
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]);
    expect(decodeBody(marked, 'text/html; charset=iso-8859-1')).toBe('<meta charset="iso-8859-1"><title>Café</title>');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<title>Café</title>', 'utf16le')]);
    expect(decodeBody(utf16, 'text/html; charset=iso-8859-1')).toBe('<title>Café</title>');
  });

  it('passes over declarations in comments, other tags and <meta> without the pragma', () => {
    expect(decodeBody(page('<!-- <meta charset="iso-8859-1"> -->'), undefined)).toContain('Caf\ufffd');
    expect(decodeBody(page('<link title="<meta charset=iso-8859-1>">'), undefined)).toContain('Caf\ufffd');
    expect(decodeBody(page('<meta content="text/html; charset=iso-8859-1">'), undefined)).toContain('Caf\ufffd');
    expect(decodeBody(page('<meta name="x" content="charset=iso-8859-1">'), undefined)).toContain('Caf\ufffd');
  });

  it('falls back to UTF-8 on a label it does not know, a broken Content-Type, and no declaration', () => {
    const utf8 = Buffer.from('<title>Café München</title>', 'utf8');
    expect(decodeBody(utf8, 'text/html; charset=klingon')).toContain('Café München');
    expect(decodeBody(utf8, 'not a mime type')).toContain('Café München');
    expect(decodeBody(utf8, undefined)).toContain('Café München');
    expect(decodeBody(Buffer.from('<meta charset="bogus"><title>Café</title>'), undefined)).toContain('Café');
    // "replacement" labels (ISO-2022-KR) and UTF-16 named in a page's own bytes are read as UTF-8.
    expect(decodeBody(Buffer.from('<meta charset="iso-2022-kr"><title>Café</title>'), undefined)).toContain('Café');
    expect(decodeBody(Buffer.from('<meta charset="utf-16le"><title>Café</title>'), undefined)).toContain('Café');
  });

  it('decodes every byte 0x80-0x9F of windows-1252 as the Encoding Standard says', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i));
    expect(decodeBody(bytes, 'text/html; charset=windows-1252')).toBe(
      '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ',
    );
  });

  it('reads x-user-defined in a <meta> as windows-1252', () => {
    expect(decodeBody(page('<meta charset="x-user-defined">'), undefined)).toContain('Café München');
  });

  it('reads past 1024 bytes of unclosed tags, attributes and comments to UTF-8', () => {
    for (const hostile of ['<meta '.repeat(200), '<a '.repeat(400), '<meta a="'.repeat(120), '<!--'.repeat(300)]) {
      expect(decodeBody(latin1(hostile + '\u00e9'), undefined)).toContain('\ufffd');
    }
  });
});

describe('charsetInContent', () => {
  it('reads charset= as HTML does', () => {
    expect(charsetInContent('text/html; charset=ISO-8859-1')).toBe('iso-8859-1');
    expect(charsetInContent('text/html;charset = "koi8-r" ')).toBe('koi8-r');
    expect(charsetInContent("charset='x")).toBeNull();
    expect(charsetInContent('charsetx; charset=utf-8')).toBe('utf-8');
    expect(charsetInContent('text/html')).toBeNull();
    expect(charsetInContent('charset=')).toBeNull();
  });
});
