import { HttpException, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { AppError } from './app-error.js';

const logger = new Logger('Errors');

// Errors from pg and the pool that mean the database could not answer (down, timed out, refused).
const DATABASE_ERROR_NAMES = new Set([
  'QueryFailedError',
  'DatabaseError',
  'ConnectionIsNotSetError',
  'CannotConnectAlreadyConnectedError',
]);
const DATABASE_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P03',
  '57014',
  '08006',
  '08001',
  '08003',
]);
const DATABASE_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection timeout|Connection terminated unexpectedly|too many connections/i;

function isDatabaseError(e: Error & { code?: unknown; severity?: unknown }): boolean {
  return (
    e instanceof QueryFailedError ||
    // any error PostgreSQL itself reported: a five-character SQLSTATE and a severity
    (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string') ||
    DATABASE_ERROR_NAMES.has(e.name) ||
    (typeof e.code === 'string' && DATABASE_ERROR_CODES.has(e.code)) ||
    DATABASE_MESSAGES.test(e.message)
  );
}

/**
 * The database is up but no connection came free in time: the pool's wait ran out (on the embedded database, one
 * connection shared with the worker), or the server has no connection slot left (53300). Not the request's fault
 * and soon over, so the client hears 503 with Retry-After rather than a failed query.
 */
function isDatabaseBusy(e: Error & { code?: unknown }): boolean {
  // pg-pool's wait for a free connection, and pg's own limit on opening a new one (a server slow to accept).
  return (
    e.code === '53300' ||
    /timeout exceeded when trying to connect|terminated due to connection timeout/i.test(e.message)
  );
}
const BUSY_RETRY_SECONDS = 2;

// Framework errors (Fastify's content-type parser, body limit) with the contract's code for each.
function fromFrameworkError(e: Error & { code?: unknown; statusCode?: unknown }): AppError | null {
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'Request body is larger than the 16 KiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('invalid_body', 'Request body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_body', 'Request body is empty; a JSON object was expected');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_body', 'Request body is not valid JSON');
  }
  // Fastify's JSON parser throws a SyntaxError with statusCode 400 on malformed bodies.
  if (e instanceof SyntaxError || (e.statusCode === 400 && /JSON/i.test(e.message))) {
    return new AppError('invalid_body', 'Request body is not valid JSON');
  }
  return null;
}

/**
 * Turns anything thrown while serving a request into the AppError the client sees. Internal details
 * (SQL, stack traces, paths) are logged here and never copied into the message.
 */
export function toAppError(exception: unknown, requestId: string): AppError {
  if (exception instanceof AppError) return exception;
  if (exception instanceof Error) {
    // Nest hands Fastify's own 4xx errors over as an HttpException whose cause is the original.
    const original =
      exception instanceof HttpException && exception.cause instanceof Error ? exception.cause : exception;
    const framework = fromFrameworkError(original);
    if (framework) return framework;
    if (isDatabaseBusy(exception)) {
      logger.warn(`request ${requestId}: no database connection came free in time: ${exception.message}`);
      return new AppError('service_unavailable', 'The database is busy; retry shortly', {
        retryAfterSeconds: BUSY_RETRY_SECONDS,
      });
    }
    if (isDatabaseError(exception)) {
      logger.error(`request ${requestId}: database error: ${exception.message}`);
      return new AppError('query_failed', 'A database query failed; retry once');
    }
  }
  if (exception instanceof HttpException && exception.getStatus() < 500) {
    // Nest's own 4xx (for example a body the platform refused) carry no secrets.
    const status = exception.getStatus();
    if (status === 413) return new AppError('payload_too_large', 'Request body is larger than the 16 KiB limit');
    if (status === 404) return AppError.notFound('Not found');
    return new AppError('invalid_body', exception.message);
  }
  logger.error(
    `request ${requestId}: unexpected error: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
  );
  return new AppError('server_error', 'Unexpected server error; retry with exponential back-off');
}
