import { CopyLines } from './copy-lines.js';

// What PostgreSQL 15 wrote for
//   COPY (SELECT * FROM (VALUES (7, E'a.example.com\tSay "hi", \\ world'), (300, 'é.example.com')) v) TO STDOUT (FORMAT binary)
const COPIED = Buffer.from(
  'UEdDT1BZCv8NCgAAAAAAAAAAAAACAAAABAAAAAcAAAAfYS5leGFtcGxlLmNvbQlTYXkgImhpIiwgXCB3b3JsZAACAAAABAAAASwAAAAOw6kuZXhhbXBsZS5jb23//w==',
  'base64',
);
const LINES = ['a.example.com\tSay "hi", \\ world', 'é.example.com'];

/** Feeds the bytes in chunks of `size` (the last may be shorter) and joins what comes out. */
function decode(lines: CopyLines, bytes: Buffer, size: number): string {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(lines.push(bytes.subarray(at, at + size)));
  return Buffer.concat(out).toString();
}

describe('CopyLines', () => {
  it('gives each line as PostgreSQL wrote it, then its line end, and the last row with its key', () => {
    const lines = new CopyLines(Buffer.from('\r\n'));
    lines.begin();
    expect(decode(lines, COPIED, COPIED.length)).toBe(`${LINES[0]}\r\n${LINES[1]}\r\n`);
    expect(lines.rows).toBe(2);
    expect(lines.bytes).toBe(Buffer.byteLength(`${LINES.join('\r\n')}\r\n`));
    const last = lines.finish();
    expect([last?.key, last?.line.toString()]).toEqual([300, 'é.example.com']);
  });

  it.each([1, 2, 3, 5, 19, 20, 21, 64])('reads the same bytes cut into chunks of %i', (size) => {
    const lines = new CopyLines(Buffer.from('\n'));
    lines.begin();
    expect(decode(lines, COPIED, size)).toBe(`${LINES.join('\n')}\n`);
    expect(lines.finish()?.key).toBe(300);
  });

  it("puts `between` before every line of an export but its first, across batches (json's commas)", () => {
    const lines = new CopyLines(Buffer.alloc(0), Buffer.from(',\n'));
    lines.begin();
    const first = decode(lines, COPIED, 7);
    lines.finish();
    lines.begin();
    const second = decode(lines, COPIED, 7);
    expect(first + second).toBe([...LINES, ...LINES].join(',\n'));
  });

  it('has no last row for a batch without rows', () => {
    const empty = Buffer.concat([COPIED.subarray(0, 19), Buffer.from([0xff, 0xff])]);
    const lines = new CopyLines(Buffer.from('\n'));
    lines.begin();
    expect(decode(lines, empty, 4)).toBe('');
    expect([lines.rows, lines.finish()]).toEqual([0, undefined]);
  });

  it('refuses output that is cut short, is not binary COPY, or has other columns', () => {
    const cut = new CopyLines(Buffer.from('\n'));
    cut.begin();
    cut.push(COPIED.subarray(0, 40));
    expect(() => cut.finish()).toThrow(/before its trailer/);
    const text = new CopyLines(Buffer.from('\n'));
    text.begin();
    expect(() => text.push(Buffer.from('a.example.com\nb.example.com\n'))).toThrow(/not a binary COPY/);
    const wide = Buffer.from(COPIED);
    wide.writeInt16BE(3, 19);
    const other = new CopyLines(Buffer.from('\n'));
    other.begin();
    expect(() => other.push(wide)).toThrow(/not \(int4, text\)/);
  });
});
