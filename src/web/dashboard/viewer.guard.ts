import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AccountError, AccountService } from '../account/account.service.js';
import { currentSession } from '../session.js';
import type { Viewer } from './pages/page.js';

declare module 'fastify' {
  interface FastifyRequest {
    viewer?: Viewer;
  }
}

/** A dashboard page asked for without a session: the browser goes to the sign-in form, and back here after. */
function signInFirst(request: FastifyRequest): AccountError {
  const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
  return new AccountError(303, 'Sign in', 'Sign in to see this page.', { location: `/account/sign-in${next}` });
}

/**
 * The signed-in owner of a dashboard page, found before anything else of the request is looked at (guards run
 * before pipes): a visitor without a session is sent to sign in even when the page's parameters are wrong.
 */
@Injectable()
export class ViewerGuard implements CanActivate {
  constructor(private readonly account: AccountService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const found = await currentSession(this.account, request);
    if (!found) throw signInFirst(request);
    const { user } = found;
    request.viewer = {
      email: user.email,
      name: user.name,
      csrf: user.csrf_token,
      canRead: user.scopes.includes('read'),
      canWrite: user.scopes.includes('write'),
    };
    return true;
  }
}

/** A page of the dashboard: for a signed-in owner only. */
export const DashboardPage = () => UseGuards(ViewerGuard);

/** The signed-in owner ViewerGuard found. */
export const CurrentViewer = createParamDecorator((_: unknown, ctx: ExecutionContext): Viewer => {
  const viewer = ctx.switchToHttp().getRequest<FastifyRequest>().viewer;
  if (!viewer) throw new Error('CurrentViewer used on a route without ViewerGuard');
  return viewer;
});
