import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';
import { AccountError } from './account.service.js';

/** The signed-in session's cookie, read by the account page and the dashboard alike (Path=/). */
export const SESSION_COOKIE = 'sm_session';

export function requestCookies(request: FastifyRequest): Record<string, string | undefined> {
  return parseCookie(request.headers.cookie ?? '');
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

export function staleForm(): AccountError {
  return new AccountError(
    403,
    'Form expired',
    'This form is out of date or was not sent from this page. Reload the page and try again.',
  );
}
