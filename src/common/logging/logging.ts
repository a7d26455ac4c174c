import { format } from 'node:util';
import type { LoggerService } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Params } from 'nestjs-pino';
import { type Level, type Logger, pino, stdTimeFunctions } from 'pino';
import type { Environment } from '../../config/environment.js';

/** Where credentials travel: never written to a log line, at any level. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
];

/** Health probes and scrapes come every few seconds: logged at debug unless they fail. */
const ROUTINE = /^\/(health\/(live|ready)|metrics)\/?(\?|$)/;

/**
 * The process's one pino logger: structured JSON lines on stdout at LOG_LEVEL, ISO times, level names, and
 * Authorization, X-API-Key, cookies and CSRF tokens written as "[redacted]".
 */
export function createLogger(env: Environment): Logger {
  return pino({
    level: env.LOG_LEVEL,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
}

/**
 * nestjs-pino's Logger writes Nest's and the application's lines through the same logger. Requests are logged by
 * logRequests below, from Fastify, which sees every request (Nest middleware sees only the paths its patterns
 * match: not /docs, /metrics or the router's own refusals), so no middleware routes here.
 */
export function loggerParams(logger: Logger): Params {
  return { pinoHttp: { logger }, forRoutes: [] };
}

function levelOf(request: FastifyRequest, status: number): Level {
  if (status >= 500) return 'error';
  return ROUTINE.test(request.url) ? 'debug' : 'info';
}

/**
 * One line per request once its response is sent: request id (the response's X-Request-Id), method, route
 * template, URL, client address, headers (credentials redacted), status and duration in ms. When the line's level
 * is off, a request costs one comparison.
 */
export function logRequest(logger: Logger, request: FastifyRequest, reply: FastifyReply): void {
  const level = levelOf(request, reply.statusCode);
  if (!logger.isLevelEnabled(level)) return;
  const route = request.routeOptions?.url ?? 'unmatched';
  logger[level](
    {
      reqId: request.id,
      req: {
        id: request.id,
        method: request.method,
        route,
        url: request.url,
        remoteAddress: request.ip,
        headers: request.headers,
      },
      res: { statusCode: reply.statusCode },
      duration_ms: Math.round(reply.elapsedTime),
    },
    `${request.method} ${route} ${reply.statusCode}`,
  );
}

/** Logs every request the router matched or not (see logRequest); frameworkErrors logs its own refusals. */
export function logRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    logRequest(logger, request, reply);
    done();
  });
}

/**
 * Lines a library writes with console.* (cron's "missed execution" warning when the event loop was busy, for one)
 * go through the app's logger too, so that every line on stdout stays one JSON object. Only the service's own
 * process does this; the CLI keeps its console.
 */
export function routeConsole(logger: LoggerService): void {
  const to =
    (write: (line: string) => unknown) =>
    (...args: unknown[]): void => {
      write(format(...args));
    };
  console.log = console.info = to((line) => logger.log(line));
  console.warn = to((line) => logger.warn(line));
  console.error = to((line) => logger.error(line));
  console.debug = to((line) => logger.debug?.(line));
}
