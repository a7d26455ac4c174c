import type { FastifyReply } from 'fastify';

/** The account page's own policy: its stylesheet and script only, forms posted only to itself, never framed. */
export const ACCOUNT_CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'";

/** An HTML page of the account area: its CSP, never cached (it may hold a new key or a CSRF token). */
export function sendPage(reply: FastifyReply, status: number, body: string): void {
  void reply
    .status(status)
    .header('content-security-policy', ACCOUNT_CSP)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body);
}
