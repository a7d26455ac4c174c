import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Scope } from '../../auth/api-key.entity.js';
import type { AuthenticatedKey } from '../../auth/api-keys.service.js';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPE = 'auth:scope';
export const API_KEY_SCHEME = 'api_key';
export const BEARER_SCHEME = 'bearer';

/** No token needed. Every other route is denied by default. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** Raises the scope a route needs (read by default) and documents both ways of sending the key. */
export const RequireScope = (scope: Scope) =>
  applyDecorators(SetMetadata(REQUIRED_SCOPE, scope), ApiBearerAuth(BEARER_SCHEME), ApiSecurity(API_KEY_SCHEME));

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
