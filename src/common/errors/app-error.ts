/**
 * Every error code the service answers with, in one list: the API contract's, plus payload_too_large for oversized
 * requests and request_timeout. Services throw AppError with one of them; the HTTP layer maps each to its status
 * (common/http/http-status.ts) and the CLI to a line on stderr (cli/cli-output.ts), each in one place.
 */
export const ERROR_CODES = [
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
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** What a caller may do about an error beside reading it: when to retry, which methods a path allows. */
export interface ErrorDetails {
  retryAfterSeconds?: number;
  allow?: string[];
}

/** An error the user is meant to see, from a service or the HTTP layer: its code and message go out as they are. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }

  static invalidQuery(message: string): AppError {
    return new AppError('invalid_query', message);
  }

  static notFound(message: string): AppError {
    return new AppError('not_found', message);
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
  request_id: string;
}
