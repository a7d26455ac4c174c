import type { ErrorCode } from '../errors/app-error.js';

/** The HTTP status of each error code: the one place codes meet statuses (an exhaustive switch). */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_body':
    case 'invalid_domain':
    case 'invalid_query':
    case 'invalid_id':
      return 400;
    case 'missing_token':
    case 'invalid_token':
    case 'revoked_token':
      return 401;
    case 'insufficient_scope':
      return 403;
    case 'not_found':
    case 'unknown_platform':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'payload_too_large':
      return 413;
    case 'request_timeout':
      return 408;
    case 'query_failed':
    case 'server_error':
      return 500;
    case 'service_unavailable':
      return 503;
  }
}
