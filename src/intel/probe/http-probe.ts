import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { isSpecialUse } from '../../common/net/special-addresses.js';
import type { HttpProbe } from '../../hosts/model/knowledge.js';
import { decodeBody } from './page-charset.js';
import { clean, titleOf } from './page-title.js';

export interface ProbeOptions {
  ports: number[];
  timeoutMs: number;
  maxRedirects: number;
  /** Probe loopback, private and other special-use addresses too (PROBE_PRIVATE). */
  allowPrivate: boolean;
  /** The addresses of a name a redirect leads to. */
  resolve(host: string): Promise<string[]>;
}

/** A probe's result, with the start of the body it read for the takeover fingerprints (never kept). */
export interface ProbeOutcome {
  probe: HttpProbe;
  body: string;
}

/** Bytes of a body read at most. */
export const MAX_BODY_BYTES = 64 * 1024;
const HEADER_LENGTH = 200;

const NOTHING: HttpProbe = {
  listening: false,
  scheme: null,
  port: null,
  status: null,
  final_url: null,
  title: null,
  server: null,
  content_length: null,
  tls_subject: null,
  tls_issuer: null,
  tls_not_after: null,
};

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  tls: { subject: string; issuer: string; notAfter: string } | null;
}

/**
 * Probes a host's web server at one of its own addresses (never a new lookup of its name, so an answer cannot
 * change between the check and the connection): each port in order, 80 as http, 443 as https, any other as https
 * and then http, until one answers. Redirects are followed up to maxRedirects, to http(s) only, and to another
 * host only at an address that passes the same check. Null when every address is special-use and
 * allowPrivate is off: nothing was probed.
 */
export async function probeHost(host: string, addresses: string[], opts: ProbeOptions): Promise<ProbeOutcome | null> {
  const allowed = addresses.filter((a) => opts.allowPrivate || !isSpecialUse(a));
  if (allowed.length === 0) return null;
  for (const port of opts.ports) {
    const schemes = port === 80 ? ['http'] : port === 443 ? ['https'] : ['https', 'http'];
    for (const scheme of schemes) {
      try {
        return await follow(new URL(`${scheme}://${host}:${port}/`), allowed[0], opts);
      } catch {
        // Nothing (or not this protocol) listens there: the next scheme or port.
      }
    }
  }
  return { probe: NOTHING, body: '' };
}

async function follow(start: URL, address: string, opts: ProbeOptions): Promise<ProbeOutcome> {
  let url = start;
  let at = address;
  let answer = await request(url, at, opts.timeoutMs);
  for (let hops = 0; hops < opts.maxRedirects && answer.status >= 300 && answer.status < 400; hops++) {
    const location = answer.headers.location;
    let next: URL;
    try {
      next = new URL(location ?? '', url);
    } catch {
      break;
    }
    if (!location || (next.protocol !== 'http:' && next.protocol !== 'https:')) break;
    if (next.hostname !== url.hostname) {
      const name = next.hostname.replace(/^\[|\]$/g, '');
      const candidates = isIP(name) ? [name] : await opts.resolve(name).catch(() => []);
      const safe = candidates.filter((a) => opts.allowPrivate || !isSpecialUse(a));
      if (safe.length === 0) break;
      at = safe[0];
    }
    try {
      answer = await request(next, at, opts.timeoutMs);
    } catch {
      break;
    }
    url = next;
  }
  const body = decodeBody(answer.body, answer.headers['content-type']);
  const length = Number(answer.headers['content-length']);
  return {
    probe: {
      listening: true,
      scheme: start.protocol === 'https:' ? 'https' : 'http',
      port: Number(start.port) || (start.protocol === 'https:' ? 443 : 80),
      status: answer.status,
      final_url: clean(url.href, 2048),
      title: titleOf(body),
      server: answer.headers.server ? clean(String(answer.headers.server), HEADER_LENGTH) : null,
      content_length: Number.isSafeInteger(length) && length >= 0 ? length : null,
      tls_subject: answer.tls?.subject ?? null,
      tls_issuer: answer.tls?.issuer ?? null,
      tls_not_after: answer.tls?.notAfter ?? null,
    },
    body,
  };
}

/** One GET at an address, with the URL's host as Host and as the TLS server name; the body read up to its bound. */
function request(url: URL, address: string, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const req = (secure ? https : http).request({
      host: address,
      port: Number(url.port) || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { host: url.host, 'user-agent': 'subdomain-monitor', accept: '*/*' },
      agent: false,
      ...(secure ? { servername: isIP(hostname) ? undefined : hostname, rejectUnauthorized: false } : {}),
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs);
    req.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        clearTimeout(timer);
        const tls = secure ? certificateOf(res.socket as TLSSocket) : null;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES),
          tls,
        });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BODY_BYTES) done();
      });
      res.once('end', done);
      res.once('error', done);
    });
    req.end();
  });
}

function certificateOf(socket: TLSSocket): Answer['tls'] {
  const cert = socket.getPeerCertificate?.();
  if (!cert || !cert.subject) return null;
  const name = (dn: Record<string, string | string[]> | undefined) =>
    clean(
      Object.entries(dn ?? {})
        .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
        .join(', '),
      HEADER_LENGTH,
    );
  const notAfter = new Date(cert.valid_to);
  return {
    subject: name(cert.subject as unknown as Record<string, string>),
    issuer: name(cert.issuer as unknown as Record<string, string>),
    notAfter: Number.isNaN(notAfter.getTime()) ? '' : notAfter.toISOString(),
  };
}
