/** The error codes of the API contract, plus payload_too_large for oversized requests and request_timeout. */
export type ErrorCode =
  | 'invalid_body'
  | 'invalid_domain'
  | 'invalid_query'
  | 'invalid_id'
  | 'missing_token'
  | 'invalid_token'
  | 'revoked_token'
  | 'insufficient_scope'
  | 'not_found'
  | 'unknown_platform'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'request_timeout'
  | 'query_failed'
  | 'server_error'
  | 'service_unavailable';

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

export const ERROR_CODES: readonly ErrorCode[] = [
  'invalid_body',
  'invalid_domain',
  'invalid_query',
  'invalid_id',
  'missing_token',
  'invalid_token',
  'revoked_token',
  'insufficient_scope',
  'not_found',
  'unknown_platform',
  'method_not_allowed',
  'payload_too_large',
  'request_timeout',
  'query_failed',
  'server_error',
  'service_unavailable',
];

/** An error the client is meant to see: its code and message go out as they are. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return statusOf(this.code);
  }

  static invalidQuery(message: string): ApiError {
    return new ApiError('invalid_query', message);
  }

  static notFound(message: string): ApiError {
    return new ApiError('not_found', message);
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
  request_id: string;
}
