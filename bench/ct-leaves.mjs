// RFC 6962 leaves for the CT benchmark, as real logs hold them: 60 % precertificates, 1-100 names per certificate
// (most have a few, some many, as SAN-heavy certificates do), and a share `matching` (1 %) of entries naming hosts
// under one of the tracked roots root0.bench … root{roots-1}.bench. A small DER writer: the bytes are certificates a parser must
// walk, signed with a placeholder (nothing verifies a log entry's signature here).
const der = (tag, ...parts) => {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length =
    n < 0x80
      ? [n]
      : n < 0x100
        ? [0x81, n]
        : n < 0x10000
          ? [0x82, n >> 8, n & 0xff]
          : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
};
const seq = (...parts) => der(0x30, ...parts);
const oid = (hex) => der(0x06, Buffer.from(hex, 'hex'));
const name = (cn) => seq(der(0x31, seq(oid('550403'), der(0x0c, Buffer.from(cn)))));
const ALG = seq(oid('2a8648ce3d040302'));
const SPKI = seq(
  seq(oid('2a8648ce3d0201'), oid('2a8648ce3d030107')),
  der(0x03, Buffer.concat([Buffer.from([0, 4]), Buffer.alloc(64, 1)])),
);
const ISSUER = name('Bench CA R3');
const VALIDITY = seq(der(0x17, Buffer.from('250101000000Z')), der(0x17, Buffer.from('260101000000Z')));

/** A deterministic pseudo-random sequence (xorshift), so every run benchmarks the same log. */
function random(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function tbs(serial, names) {
  const san = seq(...names.map((n) => der(0x82, Buffer.from(n, 'latin1'))));
  return seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.from([1, (serial >> 16) & 0xff, (serial >> 8) & 0xff, serial & 0xff])),
    ALG,
    ISSUER,
    VALIDITY,
    name(names[0]),
    SPKI,
    der(0xa3, seq(seq(oid('551d11'), der(0x04, san)))),
  );
}

const u24 = (n) => Buffer.from([n >> 16, (n >> 8) & 0xff, n & 0xff]);
function leaf(precert, serial, names) {
  const head = Buffer.alloc(12);
  head.writeBigUInt64BE(BigInt(Date.now()), 2);
  head.writeUInt16BE(precert ? 1 : 0, 10);
  const body = tbs(serial, names);
  const entry = precert
    ? Buffer.concat([Buffer.alloc(32, 7), u24(body.length), body])
    : (() => {
        const cert = seq(body, ALG, der(0x03, Buffer.concat([Buffer.from([0]), Buffer.alloc(71, 9)])));
        return Buffer.concat([u24(cert.length), cert]);
      })();
  return Buffer.concat([head, entry, Buffer.from([0, 0])]);
}

let serial = 1;
export function makeLeaves(count, roots, matchingShare = 0.01) {
  const r = random(count);
  const out = [];
  for (let i = 0; i < count; i++) {
    // 1-100 names, skewed towards few: most certificates name a host or two, a few name dozens.
    const n = Math.min(100, 1 + Math.floor(-Math.log(1 - r()) * 3 * (r() < 0.05 ? 10 : 1)));
    const matching = r() < matchingShare;
    const base = matching ? `root${Math.floor(r() * roots)}.bench` : `site${Math.floor(r() * 1e7)}.example`;
    const names = Array.from({ length: n }, (_, k) => (k === 0 ? base : `h${k}-${i}.${base}`));
    out.push(leaf(r() < 0.6, serial++, names));
  }
  return out;
}

/** One certificate naming `host` (under a tracked root). */
export const matchingLeaf = (host) => leaf(true, serial++, [host]);
