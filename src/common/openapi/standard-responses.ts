import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';

/** The error body every refusal has (ErrorBodyDto, which ApiErrors registers). */
const ERROR_BODY = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } };

const error = (description: string, extra: Partial<ResponseObject> = {}): ResponseObject => ({
  description,
  content: structuredClone(ERROR_BODY),
  ...extra,
});

/** A malformed request (a header Node cannot read, a bad request line) is refused before any route: on every path. */
export const MALFORMED_REQUEST = 'invalid_body (a malformed HTTP request: a header, say)';

/**
 * The answers any operation can give that come from no route's code: Node refuses a request that is too slow or
 * whose headers are too large before it is routed (create-app's answerClientError), and the route check answers a
 * path that is another operation's own (GET /scans/rescan-all, a path of POST) with 405 before the key is read.
 */
export const ANY_OPERATION: Record<string, ResponseObject> = {
  '405': error(
    'method_not_allowed: the path is also the path of other operations, not of this method (Allow lists theirs)',
    { headers: { Allow: { $ref: '#/components/headers/Allow' } } },
  ),
  '408': error(
    'request_timeout: the request, headers and body, did not arrive within REQUEST_TIMEOUT_SECONDS; the ' +
      'connection is closed',
  ),
  '431': error('payload_too_large: the request headers are too large'),
};

/**
 * Any operation that reads the database answers 503 when no connection came free within
 * DATABASE_CONNECT_TIMEOUT_MS (the embedded database has one, shared with the worker): soon over, so it says when to
 * retry.
 */
export const DATABASE_BUSY =
  'service_unavailable: the database is busy (no connection came free in time); retry after Retry-After seconds';
const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };

/** Fastify reads the body of every method but GET and HEAD, and refuses one over 16 KiB. */
const BODY_TOO_LARGE = error('payload_too_large: a body over 16 KiB');

/** The methods whose body Fastify never reads. */
const BODYLESS = new Set(['get', 'head']);

/**
 * States in the document every status the server can send for each operation, once for all of them: 400 (a
 * malformed request), 405, 408, 431 and 503 (the database busy) everywhere, 413 wherever a body is read. An operation's own entry for a
 * status is kept; its 400 gains invalid_body when it did not name it.
 */
export function addStandardResponses(document: OpenAPIObject): void {
  document.components = {
    ...document.components,
    headers: {
      ...document.components?.headers,
      Allow: {
        description: 'The methods the path does allow, e.g. `POST`',
        required: true,
        schema: { type: 'string', example: 'GET, HEAD' },
      },
      RetryAfter: {
        description: 'Seconds to wait before trying again',
        required: true,
        schema: { type: 'string', pattern: '^[0-9]+$', example: '2' },
      },
    },
  };
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, OperationObject>)) {
      const responses = operation.responses;
      const bad = responses['400'] as ResponseObject | undefined;
      if (!bad) responses['400'] = error(MALFORMED_REQUEST);
      else if (!bad.description.includes('invalid_body')) bad.description += ` | ${MALFORMED_REQUEST}`;
      if (!BODYLESS.has(method)) responses['413'] ??= structuredClone(BODY_TOO_LARGE);
      for (const [status, response] of Object.entries(ANY_OPERATION)) responses[status] ??= structuredClone(response);
      const busy = responses['503'] as ResponseObject | undefined;
      if (!busy) responses['503'] = error(DATABASE_BUSY, { headers: structuredClone(RETRY_AFTER) });
      else {
        if (!busy.description.includes('database is busy')) busy.description += ` | ${DATABASE_BUSY}`;
        busy.headers = { ...busy.headers, ...structuredClone(RETRY_AFTER) };
      }
      operation.responses = sortedByStatus(responses);
    }
  }
}

/** Responses in the order of their statuses, as a reader looks them up. */
function sortedByStatus(responses: OperationObject['responses']): OperationObject['responses'] {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
