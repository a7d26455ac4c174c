import type { FastifyReply } from 'fastify';

/**
 * The policy of the account page and the dashboard: stylesheets and scripts of this origin only (no inline
 * script or style element), requests (the live list's stream, search as you type) to this origin only, forms
 * posted only to itself, never framed.
 */
export const ACCOUNT_CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'";

/** An HTML page of the account area or the dashboard: its CSP, never cached (it may hold a new key or a CSRF token). */
export function sendPage(reply: FastifyReply, status: number, body: string): void {
  void reply
    .status(status)
    .header('content-security-policy', ACCOUNT_CSP)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}
