import { lookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { AppError } from '../common/errors/app-error.js';
import { indefiniteArticle } from '../common/net/special-addresses.js';

/** The outcome of one POST to a webhook endpoint. */
export interface PostOutcome {
  ok: boolean;
  /** The endpoint's HTTP status; null when it never answered. */
  status: number | null;
  /** A code (ECONNREFUSED, ENOTFOUND, …) or a fixed phrase: never a message that could quote the URL. */
  error: string | null;
  durationMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  /** Aborts the attempt (the process is stopping); the outcome then says "aborted". */
  signal?: AbortSignal;
  /** WEBHOOK_ALLOW_PRIVATE: reach loopback, private and other special-use addresses too. */
  allowPrivate: boolean;
}

/** Refused, with what an owner can act on: the address is not one webhooks may reach. */
export const PRIVATE_ADDRESS = 'private address refused';

// request-filtering-agent checks every address a name resolves to as the socket connects (and an address given
// as the host), so a name that resolved to a public address at creation and to a private one now is refused now:
// the check and the connection use the same lookup. Plain agents when WEBHOOK_ALLOW_PRIVATE=on.
const FILTERING = { http: new RequestFilteringHttpAgent(), https: new RequestFilteringHttpsAgent() };
const PLAIN = { http: new HttpAgent(), https: new HttpsAgent() };

/**
 * POSTs a body to a webhook URL with a timeout, never following a redirect (a 3xx is a failed attempt) and never
 * reading more of the answer than its status line and headers.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostOutcome> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const https = url.startsWith('https:');
  const agents = options.allowPrivate ? PLAIN : FILTERING;
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const req = (https ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: https ? agents.https : agents.http,
      signal,
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.destroy();
      const ok = status >= 200 && status < 300;
      resolve({ ok, status, error: ok ? null : `HTTP ${status}`, durationMs: elapsed() });
    });
    req.on('error', (e: Error & { code?: string }) => {
      const error = timeout.aborted
        ? 'timed out'
        : signal.aborted
          ? 'aborted'
          : /is not allowed/.test(e.message)
            ? PRIVATE_ADDRESS
            : (e.code ?? 'request failed');
      resolve({ ok: false, status: null, error, durationMs: elapsed() });
    });
    req.end(body);
  });
}

/** How long the check of a new webhook's host may wait for its name to resolve. */
const LOOKUP_MS = 5000;

/** ipaddr.js's names of special-use ranges, as a person reads them. */
const RANGE_NAMES: Record<string, string> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique local (private)',
  carrierGradeNat: 'carrier-grade NAT',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  rfc6052: 'IPv4-embedded',
  '6to4': '6to4',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
  amt: 'AMT',
  as112: 'AS112',
  deprecated: 'deprecated',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'reserved',
};

/** Lookup failures that say the name does not exist (NXDOMAIN, or no address): the URL is wrong. */
const NAME_ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);
/** When to try again after the name could not be looked up for now. */
const LOOKUP_RETRY_SECONDS = 10;

type Lookup = (host: string, options: { all: true }) => Promise<{ address: string }[]>;

/**
 * Why a webhook URL may not be registered, or null: its host is, or resolves to, a loopback, private, link-local
 * or other special-use address (anything ipaddr.js does not call unicast), or does not exist. A name that cannot
 * be looked up right now (EAI_AGAIN, a resolver that timed out or failed) is the service's trouble, not the
 * URL's: that throws 503 service_unavailable with Retry-After. Nothing is looked up when private addresses are
 * allowed.
 */
export async function targetProblem(url: URL, allowPrivate: boolean, resolve: Lookup = lookup): Promise<string | null> {
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })), LOOKUP_MS).unref(),
      );
      addresses = (await Promise.race([resolve(host, { all: true }), timeout])).map((a) => a.address);
    } catch (e) {
      const code = (e as { code?: string }).code ?? 'lookup failed';
      if (!NAME_ABSENT.has(code)) {
        throw new AppError('service_unavailable', `${host} cannot be looked up right now (${code}); retry shortly`, {
          retryAfterSeconds: LOOKUP_RETRY_SECONDS,
        });
      }
      return `${host} does not resolve (${code})`;
    }
  }
  for (const address of addresses) {
    const range = ipaddr.process(address).range();
    if (range !== 'unicast') {
      const kind = RANGE_NAMES[range] ?? range;
      return (
        `${host} is ${address === host ? '' : `at ${address}, `}${indefiniteArticle(kind)} ${kind} address: webhooks ` +
        'reach public addresses only (WEBHOOK_ALLOW_PRIVATE=on allows others)'
      );
    }
  }
  return null;
}
