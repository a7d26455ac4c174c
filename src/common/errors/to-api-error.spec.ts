import { HttpException, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError, ERROR_CODES, statusOf } from './api-error.js';
import { toApiError } from './to-api-error.js';

describe('toApiError', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('passes ApiError through', () => {
    const e = new ApiError('unknown_platform', 'no');
    expect(toApiError(e, 'r')).toBe(e);
  });

  it('maps database failures to query_failed without their SQL', () => {
    const e = toApiError(
      new QueryFailedError('SELECT secret FROM t', [], new Error('relation "t" does not exist')),
      'r',
    );
    expect(e.code).toBe('query_failed');
    expect(e.message).not.toMatch(/secret|relation/);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(toApiError(refused, 'r').code).toBe('query_failed');
  });

  it('maps anything unexpected to a generic server_error', () => {
    const e = toApiError(
      new TypeError("Cannot read properties of undefined (reading 'x') at /srv/app/dist/x.js:1"),
      'r',
    );
    expect(e.code).toBe('server_error');
    expect(e.status).toBe(500);
    expect(e.message).not.toMatch(/undefined|\/srv/);
    expect(toApiError('a string', 'r').code).toBe('server_error');
  });

  it('maps Fastify body errors wrapped by Nest', () => {
    const tooLarge = new HttpException('too large', 413, {
      cause: Object.assign(new Error('Request body is too large'), {
        code: 'FST_ERR_CTP_BODY_TOO_LARGE',
        statusCode: 413,
      }),
    });
    expect(toApiError(tooLarge, 'r').code).toBe('payload_too_large');
  });

  it('gives every code a status', () => {
    for (const code of ERROR_CODES) expect(statusOf(code)).toBeGreaterThanOrEqual(400);
  });
});
