import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { ApiErrors } from '../common/openapi/api-responses.js';
import type { FastifyRequest } from 'fastify';
import type { Scope } from './entities/api-key.entity.js';
import type { AuthenticatedKey } from './api-keys.service.js';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPE = 'auth:scope';
export const API_KEY_SCHEME = 'api_key';
export const BEARER_SCHEME = 'bearer';

/** No token needed. Every other route is denied by default. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * The scope a route needs (every route not marked @Public() needs at least read); documents both ways of
 * sending the key and the errors authentication can give, 403 insufficient_scope included.
 */
export const RequireScope = (scope: Scope) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiBearerAuth(BEARER_SCHEME),
    ApiSecurity(API_KEY_SCHEME),
    // A key without the scope is refused with 403 at a read route too: a key may hold write alone.
    ApiErrors('missing_token', 'invalid_token', 'revoked_token', 'insufficient_scope', 'query_failed', 'server_error'),
  );

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: AuthenticatedKey;
  }
}

/** The key that authenticated this request (set by the global AuthGuard). */
export const CurrentKey = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthenticatedKey => {
  const key = ctx.switchToHttp().getRequest<FastifyRequest>().apiKey;
  if (!key) throw new Error('CurrentKey used on a public route');
  return key;
});
