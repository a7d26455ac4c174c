import { tileEntries, entryNames } from './ct-entry.js';
import { tilePath } from './static-ct-client.js';

describe('static-ct-api tiles', () => {
  it.each([
    [0, '000'],
    [7, '007'],
    [999, '999'],
    [1000, 'x001/000'],
    [1234067, 'x001/x234/067'],
    [1_000_000_000, 'x001/x000/x000/000'],
  ])('encodes tile index %i as %s', (index, path) => {
    expect(tilePath(index)).toBe(path);
  });

  it('cuts a data tile into its entries, and refuses one that ends mid-entry', () => {
    const x509 = Buffer.concat([
      Buffer.alloc(8), // timestamp
      Buffer.from([0, 0]), // x509_entry
      Buffer.from([0, 0, 2]),
      Buffer.from([0x30, 0x00]), // a (nameless) certificate
      Buffer.from([0, 0]), // extensions
      Buffer.from([0, 32]),
      Buffer.alloc(32), // one chain fingerprint
    ]);
    const precert = Buffer.concat([
      Buffer.alloc(8),
      Buffer.from([0, 1]), // precert_entry
      Buffer.alloc(32), // issuer_key_hash
      Buffer.from([0, 0, 2, 0x30, 0x00]), // TBSCertificate
      Buffer.from([0, 8, 0, 0, 5, 0, 0, 0, 0, 9]), // extensions: leaf_index 9
      Buffer.from([0, 0, 2, 0x30, 0x00]), // pre_certificate
      Buffer.from([0, 0]), // no chain
    ]);
    const entries = tileEntries(Buffer.concat([x509, precert, x509]));
    expect(entries.map((e) => e.length)).toEqual([x509.length, precert.length, x509.length]);
    expect(entries[1][9]).toBe(1);
    expect(() => entryNames(entries[0])).toThrow(/certificate/);
    expect(() => tileEntries(Buffer.concat([x509, precert.subarray(0, 50)]))).toThrow(/truncated/);
    expect(() => tileEntries(Buffer.concat([x509, Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 7])]))).toThrow(/type 7/);
  });
});
