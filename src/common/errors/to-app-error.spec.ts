import { HttpException, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { statusOf } from '../http/http-status.js';
import { AppError, ERROR_CODES } from './app-error.js';
import { toAppError } from './to-app-error.js';

describe('toAppError', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('passes AppError through', () => {
    const e = new AppError('unknown_platform', 'no');
    expect(toAppError(e, 'r')).toBe(e);
  });

  it('maps database failures to query_failed without their SQL', () => {
    const e = toAppError(
      new QueryFailedError('SELECT secret FROM t', [], new Error('relation "t" does not exist')),
      'r',
    );
    expect(e.code).toBe('query_failed');
    expect(e.message).not.toMatch(/secret|relation/);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(toAppError(refused, 'r').code).toBe('query_failed');
  });

  it('maps anything unexpected to a generic server_error', () => {
    const e = toAppError(
      new TypeError("Cannot read properties of undefined (reading 'x') at /srv/app/dist/x.js:1"),
      'r',
    );
    expect(e.code).toBe('server_error');
    expect(statusOf(e.code)).toBe(500);
    expect(e.message).not.toMatch(/undefined|\/srv/);
    expect(toAppError('a string', 'r').code).toBe('server_error');
  });

  it('maps Fastify body errors wrapped by Nest', () => {
    const tooLarge = new HttpException('too large', 413, {
      cause: Object.assign(new Error('Request body is too large'), {
        code: 'FST_ERR_CTP_BODY_TOO_LARGE',
        statusCode: 413,
      }),
    });
    expect(toAppError(tooLarge, 'r').code).toBe('payload_too_large');
  });

  it('gives every code a status', () => {
    for (const code of ERROR_CODES) expect(statusOf(code)).toBeGreaterThanOrEqual(400);
  });
});
