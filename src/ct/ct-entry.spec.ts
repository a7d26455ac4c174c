import { X509Certificate } from 'node:crypto';
import { certificate, precertLeaf, x509Leaf } from '../../test/fixtures/ct-certs.js';
import { EntryError, leafNames } from './ct-entry.js';

describe('RFC 6962 entry names', () => {
  it('reads the subject CN and the SAN dNSNames of an x509_entry, as OpenSSL does', () => {
    const spec = { cn: 'www.example.com', dns: ['www.example.com', '*.API.example.com'], ips: [[10, 0, 0, 1]] };
    // The test certificates are real DER: OpenSSL parses them and sees the same names.
    const openssl = new X509Certificate(certificate(spec));
    expect(openssl.subject).toBe('CN=www.example.com');
    expect(openssl.subjectAltName).toBe('DNS:www.example.com, DNS:*.API.example.com, IP Address:10.0.0.1');
    expect(leafNames(x509Leaf(spec))).toEqual({
      type: 'x509',
      names: ['www.example.com', 'www.example.com', '*.API.example.com'],
    });
  });

  it('reads the TBSCertificate of a precert_entry, after the issuer key hash', () => {
    expect(leafNames(precertLeaf({ dns: ['a.example.org', 'b.example.org'] }))).toEqual({
      type: 'precert',
      names: ['a.example.org', 'b.example.org'],
    });
  });

  it('reads a certificate with a CN only, or with no name at all', () => {
    expect(leafNames(x509Leaf({ cn: 'only.example.net' })).names).toEqual(['only.example.net']);
    expect(leafNames(precertLeaf({})).names).toEqual([]);
  });

  it('refuses truncated leaves, unknown versions and unknown entry types with an EntryError', () => {
    const leaf = x509Leaf({ dns: ['x.example.com'] });
    expect(() => leafNames(leaf.subarray(0, leaf.length - 40))).toThrow(EntryError);
    expect(() => leafNames(Buffer.concat([Buffer.from([1]), leaf.subarray(1)]))).toThrow(/version/);
    const odd = Buffer.from(leaf);
    odd.writeUInt16BE(7, 10);
    expect(() => leafNames(odd)).toThrow(/entry type 7/);
    const garbage = Buffer.from(leaf);
    garbage.fill(0xff, 15, 40);
    expect(() => leafNames(garbage)).toThrow(EntryError);
  });

  it("reads the names OpenSSL reads, and prints both parsers' entries per second", () => {
    const dns = Array.from({ length: 20 }, (_, i) => `host${i}.example.com`);
    const leaves = Array.from({ length: 200 }, (_, i) => (i % 5 < 3 ? precertLeaf : x509Leaf)({ cn: dns[0], dns }));
    const rounds = 10;
    const time = (parse: (leaf: Buffer) => unknown) => {
      const start = process.hrtime.bigint();
      for (let r = 0; r < rounds; r++) for (const leaf of leaves) parse(leaf);
      return (leaves.length * rounds) / (Number(process.hrtime.bigint() - start) / 1e9);
    };
    const ours = time(leafNames);
    // OpenSSL needs a whole certificate: a precert's TBSCertificate is wrapped with a dummy algorithm and an
    // empty signature (parsing verifies nothing).
    const viaOpenssl = (leaf: Buffer) => {
      const cert = new X509Certificate(leaf[11] === 0 ? leaf.subarray(15, leaf.length - 2) : wrap(leaf));
      return [cert.subject.slice(3), ...(cert.subjectAltName ?? '').split(', ').map((n) => n.slice(4))];
    };
    const openssl = time(viaOpenssl);
    process.stdout.write(`entries/s: DER reader ${Math.round(ours)}, crypto.X509Certificate ${Math.round(openssl)}\n`);
    for (const leaf of leaves.slice(0, 5)) expect(leafNames(leaf).names).toEqual(viaOpenssl(leaf));
  });
});

function wrap(leaf: Buffer): Buffer {
  const tbs = leaf.subarray(12 + 32 + 3, leaf.length - 2);
  const body = Buffer.concat([tbs, Buffer.from('300a06082a8648ce3d040302', 'hex'), Buffer.from([0x03, 0x01, 0x00])]);
  const n = body.length;
  return Buffer.concat([Buffer.from([0x30, 0x82, n >> 8, n & 0xff]), body]);
}
