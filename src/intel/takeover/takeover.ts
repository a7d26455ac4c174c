import type { DnsAnswer } from '../../hosts/model/dns-answer.js';
import type { Takeover } from '../../hosts/model/knowledge.js';
import { stripControlCharacters } from '../../common/validation/control-characters.js';
import { type ListedFingerprint, TAKEOVER_FINGERPRINTS } from './takeover-fingerprints.js';

/** CNAME suffix → the fingerprints of services it points at; a suffix is matched label by label from the right. */
const BY_SUFFIX = new Map<string, ListedFingerprint[]>();
for (const fingerprint of TAKEOVER_FINGERPRINTS) {
  for (const suffix of new Set(fingerprint.cname.map((c) => c.toLowerCase()))) {
    BY_SUFFIX.set(suffix, [...(BY_SUFFIX.get(suffix) ?? []), fingerprint]);
  }
}

/** The services an alias name points at: those with a CNAME suffix that the name is or ends with. */
function servicesOf(name: string): ListedFingerprint[] {
  const labels = name.split('.');
  const found: ListedFingerprint[] = [];
  for (let i = 0; i < labels.length - 1; i++) found.push(...(BY_SUFFIX.get(labels.slice(i).join('.')) ?? []));
  return found;
}

/**
 * A takeover candidate by DNS alone: the host's alias chain reaches a listed service whose evidence is NXDOMAIN,
 * and the chain does end in NXDOMAIN. Services whose evidence is their error page need the HTTP probe.
 */
export function takeoverByDns(answer: DnsAnswer): Takeover | null {
  if (answer.status !== 'nxdomain' || answer.cname.length === 0) return null;
  const services = answer.cname.flatMap(servicesOf).filter((f) => f.nxdomain);
  if (services.length === 0) return null;
  // A vulnerable verdict wins over an edge case for the same alias.
  const pick = services.find((f) => f.vulnerable) ?? services[0];
  return { service: pick.service, status: pick.status, evidence: 'NXDOMAIN', vulnerable: pick.vulnerable };
}

const EVIDENCE_LENGTH = 200;
/** Characters of a body looked at: the probe reads 64 KiB at most, and a caller with more is held to that. */
const MAX_BODY_CHARS = 64 * 1024;

/**
 * A takeover candidate by the page a host serves: its alias chain reaches a listed service, and the body the probe
 * read shows that service's error text (the "no such bucket / app / site" page of an unclaimed resource). The
 * evidence is the text of the page that matched: the fingerprint itself, or what a pattern found.
 */
export function takeoverByBody(cname: string[], body: string): Takeover | null {
  if (cname.length === 0 || body === '') return null;
  const page = body.slice(0, MAX_BODY_CHARS);
  const found = cname
    .flatMap(servicesOf)
    .map((f) => ({ f, shown: f.shownIn(page) }))
    .filter((s): s is { f: ListedFingerprint; shown: string } => s.shown !== null);
  if (found.length === 0) return null;
  const pick = found.find((s) => s.f.vulnerable) ?? found[0];
  return {
    service: pick.f.service,
    status: pick.f.status,
    evidence: [...stripControlCharacters(pick.shown.replace(/\s+/g, ' '))].slice(0, EVIDENCE_LENGTH).join(''),
    vulnerable: pick.f.vulnerable,
  };
}

/** Answers with their takeover verdict by DNS, as the host store keeps them. */
export const withTakeover = <T extends DnsAnswer>(answers: T[]): (T & { takeover: Takeover | null })[] =>
  answers.map((a) => ({ ...a, takeover: takeoverByDns(a) }));
