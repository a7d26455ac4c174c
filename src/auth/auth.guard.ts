import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../common/errors/app-error.js';
import { RouteMetadata } from '../common/http/route-metadata.js';
import { IS_PUBLIC, REQUIRED_SCOPE } from './auth.decorators.js';
import type { Scope } from './entities/api-key.entity.js';
import { ApiKeysService } from './api-keys.service.js';

/** Reads the key from `Authorization: Bearer` or `X-API-Key`; the two are equivalent. */
export function presentedToken(headers: FastifyRequest['headers']): string | null {
  const authorization = headers.authorization;
  const apiKey = headers['x-api-key'];
  let bearer: string | null = null;
  if (typeof authorization === 'string' && authorization.trim() !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
    if (!match) throw new AppError('invalid_token', 'Authorization header must be "Bearer <API key>"');
    bearer = match[1];
  }
  const header = typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : null;
  if (Array.isArray(apiKey)) throw new AppError('invalid_token', 'Send one X-API-Key header');
  if (bearer && header && bearer !== header) {
    throw new AppError('invalid_token', 'Authorization and X-API-Key carry different keys');
  }
  return bearer ?? header;
}

/** Global: every route needs a valid, unrevoked key with the route's scope unless marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  /** What each route asks: no key, or the scope a key needs. */
  private readonly routes = new RouteMetadata((targets) => ({
    isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
    scope: this.reflector.getAllAndOverride<Scope>(REQUIRED_SCOPE, targets) ?? 'read',
  }));

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { isPublic, scope } = this.routes.of(context);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const token = presentedToken(request.headers);
    if (!token) {
      throw new AppError('missing_token', 'Send your API key as "Authorization: Bearer <key>" or "X-API-Key: <key>"');
    }
    const key = await this.keys.authenticate(token);
    if (!key.scopes.includes(scope)) {
      throw new AppError('insufficient_scope', `This endpoint needs a key with the "${scope}" scope`);
    }
    request.apiKey = key;
    return true;
  }
}
