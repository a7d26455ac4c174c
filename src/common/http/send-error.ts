import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError, ErrorBody } from '../errors/api-error.js';

/** Writes the contract's error body; the request id in it is the one in the X-Request-Id header. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): void {
  const body: ErrorBody = { error: { code: error.code, message: error.message }, request_id: request.id };
  void reply
    .status(error.status)
    .headers({ ...error.headers, 'x-request-id': request.id, 'cache-control': 'no-store' })
    .type('application/json; charset=utf-8')
    .send(body);
}
