import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppError, ErrorBody } from '../errors/app-error.js';
import { statusOf } from './http-status.js';

/** Writes the contract's error body; the request id in it is the one in the X-Request-Id header. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): void {
  const body: ErrorBody = { error: { code: error.code, message: error.message }, request_id: request.id };
  void reply
    .status(statusOf(error.code))
    .headers({ ...headersOf(error), 'x-request-id': request.id, 'cache-control': 'no-store' })
    .type('application/json; charset=utf-8')
    .send(body);
}

/** The headers an error's details make: when to retry (Retry-After), which methods a path allows (Allow). */
export function headersOf(error: AppError): Record<string, string> {
  const { retryAfterSeconds, allow } = error.details;
  return {
    ...(retryAfterSeconds !== undefined && { 'retry-after': String(retryAfterSeconds) }),
    ...(allow && { allow: allow.join(', ') }),
  };
}
