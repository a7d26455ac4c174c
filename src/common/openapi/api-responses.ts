import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode } from '../errors/app-error.js';
import { statusOf } from '../http/http-status.js';

export class ErrorDetailDto {
  @ApiProperty({
    enum: ERROR_CODES,
    description: "Machine-readable error code. revoked_token: the key was revoked, or its owner's account is disabled",
  })
  code: ErrorCode;

  @ApiProperty({ description: 'What went wrong, for a person' })
  message: string;
}

export class ErrorBodyDto {
  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;

  @ApiProperty({ description: 'Equal to the X-Request-Id response header' })
  request_id: string;
}

/**
 * Documents the error responses a route can give, by code; codes that share a status share one entry. Errors are
 * always JSON: the media type is given here, not left to the route's @ApiProduces, which names its success
 * body's types (an export's text/csv, a stream's text/event-stream).
 */
export function ApiErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  return applyDecorators(
    ApiExtraModels(ErrorBodyDto),
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({
        status,
        description: list.join(' | '),
        content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorBodyDto) } } },
      }),
    ),
  );
}

interface EnvelopeOptions {
  isArray?: boolean;
  meta?: Type;
  status?: number;
  description?: string;
}

/** A `{data, meta?}` success response whose data is `model` (or an array of it). */
export function ApiEnvelope(model: Type, opts: EnvelopeOptions = {}) {
  const data = opts.isArray ? { type: 'array', items: { $ref: getSchemaPath(model) } } : { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(model, ...(opts.meta ? [opts.meta] : [])),
    ApiResponse({
      status: opts.status ?? 200,
      description: opts.description ?? 'Success',
      schema: {
        type: 'object',
        required: opts.meta ? ['data', 'meta'] : ['data'],
        properties: { data, ...(opts.meta ? { meta: { $ref: getSchemaPath(opts.meta) } } : {}) },
      },
    }),
  );
}

/** Meta of offset-paged lists. */
export class PageMetaDto {
  @ApiProperty({ type: 'integer', description: 'The limit used (after clamping to the maximum)' })
  limit: number;

  @ApiProperty({ type: 'integer' })
  offset: number;

  @ApiProperty({ type: 'integer', description: 'Rows matching the filters, across all pages' })
  total: number;
}

/** Meta of new-host windows. */
export class WindowMetaDto {
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: 'Start of the window (from since, or now minus hours)',
  })
  since: string;

  @ApiProperty({ type: 'integer', description: 'Rows in this response' })
  count: number;

  @ApiProperty({ type: 'integer', description: 'The limit used (after clamping to the maximum)' })
  limit: number;
}
