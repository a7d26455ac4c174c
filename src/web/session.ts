import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';
import type { SessionUser } from './account/account.repository.js';
import { AccountError, type AccountService, sameSecret } from './account/account.service.js';

/** The signed-in session's cookie, read by the account page and the dashboard alike (Path=/). */
export const SESSION_COOKIE = 'sm_session';

/** Where the session cookie lived before the dashboard shared it: cleared wherever the session cookie is set. */
export const LEGACY_SESSION_PATH = '/account';

export function requestCookies(request: FastifyRequest): Record<string, string | undefined> {
  return parseCookie(request.headers.cookie ?? '');
}

/**
 * Every session cookie the browser sent, in its order (at most 3): one set at Path=/account before the dashboard
 * shared the session may come first, and may be one that has ended.
 */
export function sessionIds(request: FastifyRequest): string[] {
  const ids: string[] = [];
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE && value.length) ids.push(value.join('='));
    if (ids.length === 3) break;
  }
  return ids;
}

/** The signed-in user of the first session cookie that names a current session, and that cookie's value. */
export async function currentSession(
  account: AccountService,
  request: FastifyRequest,
): Promise<{ user: SessionUser; id: string } | undefined> {
  for (const id of sessionIds(request)) {
    const user = await account.session(id);
    if (user) return { user, id };
  }
  return undefined;
}

/**
 * A browser says where a form post comes from: only this origin's pages may post, not even a sibling subdomain
 * (same site, so SameSite cookies would not stop it). Sec-Fetch-Site decides when present; otherwise Origin,
 * unless it is "null" (what a page under Referrer-Policy: no-referrer sends). Clients that send neither still
 * need the CSRF token. Throws the "form expired" page for a post from elsewhere.
 */
export function requireSameOrigin(request: FastifyRequest, publicOrigin: string | undefined): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const foreign =
    site !== undefined
      ? site !== 'same-origin'
      : origin !== undefined &&
        origin !== 'null' &&
        origin !== `${request.protocol}://${request.host}` &&
        origin !== publicOrigin;
  if (foreign) throw staleForm();
}

/** A text field of a posted form, or undefined. */
export function formField(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A form post from this origin whose `_csrf` field carries the token expected (the session's, or the sign-in
 * form's); throws the "form expired" page otherwise, and when no token is expected.
 */
export function requireFormPost(
  request: FastifyRequest,
  publicOrigin: string | undefined,
  expected: string | undefined,
): asserts expected is string {
  requireSameOrigin(request, publicOrigin);
  if (!expected || !sameSecret(formField(request.body, '_csrf'), expected)) throw staleForm();
}

export function staleForm(): AccountError {
  return new AccountError(
    403,
    'Form expired',
    'This form is out of date or was not sent from this page. Reload the page and try again.',
  );
}
