import { children, contentsEqual, DerError, readTlv, type Tlv } from './der.js';

/**
 * The names in one RFC 6962 log entry (§3.4 MerkleTreeLeaf): version 0, leaf type 0 (timestamped_entry), a
 * 64-bit timestamp, then the entry type: x509_entry (0) carries the certificate, precert_entry (1) the 32-byte
 * issuer_key_hash and then the TBSCertificate, each as opaque<1..2^24-1>. Names are the subject CNs and the
 * subjectAltName dNSNames, as written (callers normalise them). Nothing is verified: a log's entries are data.
 */
export interface LeafNames {
  type: 'x509' | 'precert';
  names: string[];
}

const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;
const OCTET_STRING = 0x04;
const BOOLEAN = 0x01;
const EXPLICIT_0 = 0xa0;
const EXPLICIT_3 = 0xa3;
const DNS_NAME = 0x82; // GeneralName dNSName [2] IMPLICIT IA5String
const BMP_STRING = 0x1e;
const UNIVERSAL_STRING = 0x1c;
const COMMON_NAME = Uint8Array.of(0x55, 0x04, 0x03); // 2.5.4.3
const SUBJECT_ALT_NAME = Uint8Array.of(0x55, 0x1d, 0x11); // 2.5.29.17

export class EntryError extends Error {}

export function leafNames(leaf: Uint8Array): LeafNames {
  if (leaf.length < 15) throw new EntryError('leaf too short');
  if (leaf[0] !== 0) throw new EntryError(`unknown leaf version ${leaf[0]}`);
  if (leaf[1] !== 0) throw new EntryError(`unknown leaf type ${leaf[1]}`);
  return entryNames(leaf.subarray(2));
}

/**
 * The names in an RFC 6962 §3.4 TimestampedEntry that begins `entry` (a MerkleTreeLeaf after its two leading
 * bytes, or a static-ct-api TileLeaf): a 64-bit timestamp, the entry type, then the certificate or the precert.
 */
export function entryNames(entry: Uint8Array): LeafNames {
  if (entry.length < 13) throw new EntryError('entry too short');
  const entryType = entry[8] * 256 + entry[9];
  try {
    if (entryType === 0) {
      const cert = opaque24(entry, 10);
      return { type: 'x509', names: tbsNames(entry, certificateTbs(entry, cert)) };
    }
    if (entryType === 1) {
      const tbs = opaque24(entry, 10 + 32);
      return { type: 'precert', names: tbsNames(entry, readTlv(entry, tbs.start, tbs.end)) };
    }
  } catch (e) {
    if (e instanceof DerError) throw new EntryError(`bad certificate: ${e.message}`);
    throw e;
  }
  throw new EntryError(`unknown entry type ${entryType}`);
}

/**
 * A static-ct-api data tile cut into its TileLeaf entries (c2sp.org/static-ct-api, "Log entries"): each is a
 * TimestampedEntry (with its CtExtensions), for a precert the pre_certificate, then the chain's fingerprints.
 * Throws EntryError when the bytes do not divide into whole entries: a tile is read whole or not at all.
 */
export function tileEntries(tile: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < tile.length) {
    const start = at;
    if (at + 10 > tile.length) throw new EntryError('truncated tile entry');
    const entryType = tile[at + 8] * 256 + tile[at + 9];
    at += 10;
    if (entryType === 1)
      at += 32; // issuer_key_hash
    else if (entryType !== 0) throw new EntryError(`unknown entry type ${entryType} in a tile`);
    at = opaque24(tile, at).end; // certificate or TBSCertificate
    at = opaque16(tile, at); // extensions
    if (entryType === 1) at = opaque24(tile, at).end; // pre_certificate
    at = opaque16(tile, at); // certificate_chain fingerprints
    entries.push(tile.subarray(start, at));
  }
  return entries;
}

/** A TLS opaque<0..2^16-1> at `at`: the offset past it. */
function opaque16(buf: Uint8Array, at: number): number {
  if (at + 2 > buf.length) throw new EntryError('truncated entry');
  const end = at + 2 + ((buf[at] << 8) | buf[at + 1]);
  if (end > buf.length) throw new EntryError('truncated entry');
  return end;
}

/** A TLS opaque<1..2^24-1> at `at`: its bytes' range. */
function opaque24(buf: Uint8Array, at: number): { start: number; end: number } {
  if (at + 3 > buf.length) throw new EntryError('truncated entry');
  const length = (buf[at] << 16) | (buf[at + 1] << 8) | buf[at + 2];
  const start = at + 3;
  if (length === 0 || start + length > buf.length) throw new EntryError('truncated certificate');
  return { start, end: start + length };
}

/** Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }: the first. */
function certificateTbs(buf: Uint8Array, range: { start: number; end: number }): Tlv {
  const cert = readTlv(buf, range.start, range.end);
  if (cert.tag !== SEQUENCE) throw new DerError('certificate is not a SEQUENCE');
  return readTlv(buf, cert.start, cert.end);
}

/**
 * TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, validity, subject,
 * subjectPublicKeyInfo, [1] [2] unique ids OPTIONAL, [3] extensions OPTIONAL }.
 */
function tbsNames(buf: Uint8Array, tbs: Tlv): string[] {
  if (tbs.tag !== SEQUENCE) throw new DerError('TBSCertificate is not a SEQUENCE');
  const fields = [...children(buf, tbs)];
  const base = fields[0]?.tag === EXPLICIT_0 ? 1 : 0;
  const subject = fields[base + 4];
  if (!subject || subject.tag !== SEQUENCE) throw new DerError('no subject');
  const names = subjectCommonNames(buf, subject);
  const extensions = fields.slice(base + 6).find((f) => f.tag === EXPLICIT_3);
  if (extensions) names.push(...altNames(buf, readTlv(buf, extensions.start, extensions.end)));
  return names;
}

/** Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF { type OID, value }): every CN value. */
function subjectCommonNames(buf: Uint8Array, name: Tlv): string[] {
  const found: string[] = [];
  for (const rdn of children(buf, name)) {
    if (rdn.tag !== SET) continue;
    for (const attribute of children(buf, rdn)) {
      const [type, value] = children(buf, attribute);
      if (type?.tag === OID && value && contentsEqual(buf, type, COMMON_NAME)) found.push(decodeString(buf, value));
    }
  }
  return found;
}

/** Extensions ::= SEQUENCE OF { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }: SAN dNSNames. */
function altNames(buf: Uint8Array, extensions: Tlv): string[] {
  const found: string[] = [];
  for (const extension of children(buf, extensions)) {
    const parts = [...children(buf, extension)];
    if (parts[0]?.tag !== OID || !contentsEqual(buf, parts[0], SUBJECT_ALT_NAME)) continue;
    const value = parts[1]?.tag === BOOLEAN ? parts[2] : parts[1];
    if (value?.tag !== OCTET_STRING) throw new DerError('subjectAltName without a value');
    const generalNames = readTlv(buf, value.start, value.end);
    for (const general of children(buf, generalNames)) {
      if (general.tag === DNS_NAME) found.push(latin1(buf, general));
    }
  }
  return found;
}

/** A DirectoryString: UTF8String, PrintableString, IA5String, T61String (read as Latin-1), BMPString, UniversalString. */
function decodeString(buf: Uint8Array, tlv: Tlv): string {
  const bytes = buf.subarray(tlv.start, tlv.end);
  if (tlv.tag === BMP_STRING)
    return Buffer.from(bytes.subarray(0, bytes.length & ~1))
      .swap16()
      .toString('utf16le');
  if (tlv.tag === UNIVERSAL_STRING) {
    let text = '';
    for (let i = 0; i + 3 < bytes.length; i += 4) {
      const code = ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0;
      text += code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    }
    return text;
  }
  return Buffer.from(bytes).toString('utf8');
}

function latin1(buf: Uint8Array, tlv: Tlv): string {
  return Buffer.from(buf.buffer, buf.byteOffset + tlv.start, tlv.end - tlv.start).toString('latin1');
}
