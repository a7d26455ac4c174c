import { escapeControlCharacters, hasControlCharacters, stripControlCharacters } from './control-characters.js';

describe('control characters in names', () => {
  it.each([
    ['ESC', 'a\x1b[2Jb'],
    ['NUL', 'a\x00b'],
    ['tab', 'a\tb'],
    ['newline', 'a\nb'],
    ['carriage return', 'a\rb'],
    ['DEL', 'a\x7fb'],
    ['C1 CSI', 'a\u009b31mb'],
    ['right-to-left override', 'a\u202eb'],
    ['left-to-right embedding', 'a\u202ab'],
    ['first strong isolate', 'a\u2068b'],
    ['pop directional isolate', 'a\u2069b'],
  ])('finds %s', (_, text) => expect(hasControlCharacters(text)).toBe(true));

  it.each(['Acme Corp', 'Ünïcödé – “quoted”', '日本語', 'emoji 🚀', 'a\u200db', 'a\u00a0b'])(
    'lets %j through',
    (text) => expect(hasControlCharacters(text)).toBe(false),
  );

  it('strips every one, keeping the rest', () => {
    expect(stripControlCharacters('\x1b]0;pwned\x07Acme\u202e Corp\u0085')).toBe(']0;pwnedAcme Corp');
  });

  it('escapes them visibly, so nothing raw reaches a terminal', () => {
    expect(escapeControlCharacters('a\x1b[31mred\x00\x7f\u009b\u202e\u2066z')).toBe(
      'a\\x1b[31mred\\x00\\x7f\\x9b\\u202e\\u2066z',
    );
    expect(escapeControlCharacters('plain name')).toBe('plain name');
  });
});
