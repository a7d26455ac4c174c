import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { stdTimeFunctions } from 'pino';
import { type HttpLogger, pinoHttp } from 'pino-http';
import type { Environment } from '../../config/environment.js';
import { requestIdFor } from '../http/request-id.js';

/** Where credentials travel: never written to a log line, at any level. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
];

/** Health probes and scrapes come every few seconds: logged at debug unless they fail. */
const ROUTINE = /^\/(health\/(live|ready)|metrics)\/?(\?|$)/;

/** pino-http's view of a request, as its serializer receives it. */
interface LoggedRequest {
  id: string;
  method: string;
  url: string;
  remoteAddress: string;
  headers: Record<string, unknown>;
  raw: IncomingMessage;
}

interface RoutedRequest {
  id: string;
  route: string;
}

/** What Fastify decided before the logger sees a request: its id (see requestIdFor) and its route template. */
const routed = new WeakMap<IncomingMessage, RoutedRequest>();

/** Called from Fastify's first onRequest hook, so the request log line carries the response's X-Request-Id. */
export function noteRoute(raw: IncomingMessage, id: string, route: string | undefined): void {
  routed.set(raw, { id, route: route ?? 'unmatched' });
}

/**
 * Structured JSON logs (pino): one line per request when it completes (request id, method, route template, URL,
 * status, duration in ms) and the application's own lines with their context. Authorization, X-API-Key, cookies
 * and CSRF tokens are replaced by "[redacted]".
 */
export function createHttpLogger(env: Environment): HttpLogger {
  return pinoHttp<IncomingMessage, ServerResponse, never>({
    level: env.LOG_LEVEL,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    genReqId: (req) => routed.get(req)?.id ?? requestIdFor(req),
    quietReqLogger: true,
    customAttributeKeys: { responseTime: 'duration_ms' },
    customLogLevel: (req, res, error) =>
      error || res.statusCode >= 500 ? 'error' : ROUTINE.test(req.url ?? '') ? 'debug' : 'info',
    customSuccessMessage: summary,
    customErrorMessage: summary,
    serializers: {
      req: (req: LoggedRequest) => ({
        id: req.id,
        method: req.method,
        route: routed.get(req.raw)?.route ?? 'unmatched',
        url: req.url,
        remoteAddress: req.remoteAddress,
        headers: req.headers,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}

function summary(req: IncomingMessage, res: ServerResponse): string {
  return `${req.method} ${routed.get(req)?.route ?? 'unmatched'} ${res.statusCode}`;
}

/**
 * nestjs-pino's Logger writes Nest's and the application's lines through the same pino logger. Requests are logged
 * by a Fastify hook (see createApp), which sees every request, not by Nest middleware, which sees only the routes
 * its path patterns match (not /docs, /metrics or the /v1 mirror): so no middleware routes here.
 */
export function loggerParams(httpLogger: HttpLogger): Params {
  return { pinoHttp: { logger: httpLogger.logger }, forRoutes: [] };
}
