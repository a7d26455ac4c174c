import { Controller, Get, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../auth/api-key.entity.js';
import { Public } from '../common/decorators/auth.decorators.js';
import { Environment } from '../config/environment.js';
import type { SessionUser } from './account.repository.js';
import { AccountError, AccountService, randomToken, sameSecret, SESSION_DAYS } from './account.service.js';
import { AccountPageFilter } from './account-page.filter.js';
import { ACCOUNT_CSS, ACCOUNT_JS } from './assets.js';
import { accountPage, type CreatedKey, type PageUser, signInPage } from './pages.js';
import { sendPage } from './respond.js';

const SESSION_COOKIE = 'sm_session';
const SIGN_IN_COOKIE = 'sm_sign_in';

type Form = Record<string, unknown>;

const field = (body: unknown, name: string): string | undefined => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * /account: where key owners sign in, see their keys (never a secret), create one (shown once) and revoke
 * theirs. Server-rendered HTML, usable without JavaScript; outside the API prefix and its key check.
 */
@ApiExcludeController()
@Public()
@UseFilters(AccountPageFilter)
@Controller('account')
export class AccountController {
  private readonly publicOrigin: string | undefined;

  constructor(
    private readonly account: AccountService,
    env: Environment,
  ) {
    this.publicOrigin = env.PUBLIC_URL ? new URL(env.PUBLIC_URL).origin : undefined;
  }

  @Get()
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const user = await this.user(request);
    if (!user) return this.redirect(reply, '/account/sign-in');
    sendPage(reply, 200, await this.render(user));
  }

  @Get('sign-in')
  async signInForm(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (await this.user(request)) return this.redirect(reply, '/account');
    // A second sign-in tab keeps the first one's token valid.
    const current = this.cookies(request)[SIGN_IN_COOKIE];
    const csrf = current && /^[\w-]{43}$/.test(current) ? current : randomToken();
    this.setCookie(request, reply, SIGN_IN_COOKIE, csrf, 3600, 'strict');
    sendPage(reply, 200, signInPage(csrf));
  }

  @Post('sign-in')
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.requireSameOrigin(request);
    const expected = this.cookies(request)[SIGN_IN_COOKIE];
    if (!expected || !sameSecret(field(request.body, '_csrf'), expected)) throw this.staleForm();
    const email = field(request.body, 'email') ?? '';
    try {
      const session = await this.account.signIn(email, field(request.body, 'password') ?? '', request.ip);
      this.setCookie(request, reply, SIGN_IN_COOKIE, '', 0, 'strict');
      this.setCookie(request, reply, SESSION_COOKIE, session, SESSION_DAYS * 86_400, 'lax');
      this.redirect(reply, '/account');
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      void reply.headers(error.headers);
      sendPage(reply, error.status, signInPage(expected, error.message, email.slice(0, 254)));
    }
  }

  /** Where a reload of the page that showed a new key (a POST) lands, or a bookmark of it. */
  @Get('tokens')
  tokensPage(@Res() reply: FastifyReply): void {
    this.redirect(reply, '/account');
  }

  @Post('sign-out')
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.formUser(request);
    await this.account.signOut(this.cookies(request)[SESSION_COOKIE] as string);
    this.setCookie(request, reply, SESSION_COOKIE, '', 0, 'lax');
    this.redirect(reply, '/account/sign-in');
  }

  @Post('tokens')
  async createToken(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const user = await this.formUser(request);
    const name = field(request.body, 'name') ?? '';
    const scope = field(request.body, 'scope');
    if (scope !== 'read' && scope !== 'write') {
      return sendPage(reply, 400, await this.render(user, undefined, 'Choose the read or the read and write scope.'));
    }
    const scopes: Scope[] = scope === 'write' ? ['read', 'write'] : ['read'];
    const result = await this.account.createKey(user.user_id, name, scopes);
    if ('problem' in result) return sendPage(reply, 400, await this.render(user, undefined, result.problem));
    sendPage(reply, 201, await this.render(user, { name: name.trim(), token: result.token }));
  }

  @Post('tokens/:id/revoke')
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const user = await this.formUser(request);
    await this.account.revokeKey(user.user_id, id);
    this.redirect(reply, '/account');
  }

  @Get('account.css')
  stylesheet(@Res() reply: FastifyReply): void {
    this.asset(reply, 'text/css; charset=utf-8', ACCOUNT_CSS);
  }

  @Get('account.js')
  script(@Res() reply: FastifyReply): void {
    this.asset(reply, 'text/javascript; charset=utf-8', ACCOUNT_JS);
  }

  private cookies(request: FastifyRequest): Record<string, string | undefined> {
    return parseCookie(request.headers.cookie ?? '');
  }

  private user(request: FastifyRequest): Promise<SessionUser | undefined> {
    return this.account.session(this.cookies(request)[SESSION_COOKIE]);
  }

  /** The user behind a form post: a current session, and the form carries that session's CSRF token. */
  private async formUser(request: FastifyRequest): Promise<SessionUser> {
    this.requireSameOrigin(request);
    const user = await this.user(request);
    if (!user) throw new AccountError(401, 'Signed out', 'Your session has ended. Sign in again.');
    if (!sameSecret(field(request.body, '_csrf'), user.csrf_token)) throw this.staleForm();
    return user;
  }

  /**
   * A browser says where a form post comes from: only this origin's pages may post, not even a sibling subdomain
   * (same site, so SameSite cookies would not stop it). Sec-Fetch-Site decides when present; otherwise Origin,
   * unless it is "null" (what a page under Referrer-Policy: no-referrer sends). Clients that send neither still
   * need the CSRF token.
   */
  private requireSameOrigin(request: FastifyRequest): void {
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    const foreign =
      site !== undefined
        ? site !== 'same-origin'
        : origin !== undefined &&
          origin !== 'null' &&
          origin !== `${request.protocol}://${request.host}` &&
          origin !== this.publicOrigin;
    if (foreign) throw this.staleForm();
  }

  private staleForm(): AccountError {
    return new AccountError(
      403,
      'Form expired',
      'This form is out of date or was not sent from this page. Reload the page and try again.',
    );
  }

  private async render(user: SessionUser, created?: CreatedKey, problem?: string): Promise<string> {
    const pageUser: PageUser = { email: user.email, name: user.name, csrf: user.csrf_token };
    return accountPage(pageUser, await this.account.listKeys(user.user_id), created, problem);
  }

  private asset(reply: FastifyReply, type: string, body: string): void {
    void reply.header('cache-control', 'public, max-age=3600').type(type).send(body);
  }

  private redirect(reply: FastifyReply, to: string): void {
    void reply.status(303).header('location', to).header('cache-control', 'no-store').send();
  }

  /** HttpOnly, Path=/account, Secure when the request came over HTTPS (see TRUST_PROXY); max-age 0 clears. */
  private setCookie(
    request: FastifyRequest,
    reply: FastifyReply,
    name: string,
    value: string,
    maxAge: number,
    sameSite: 'lax' | 'strict',
  ): void {
    const cookie = stringifySetCookie({
      name,
      value,
      path: '/account',
      httpOnly: true,
      sameSite,
      secure: request.protocol === 'https',
      maxAge,
    });
    void reply.header('set-cookie', cookie); // Fastify adds each Set-Cookie rather than replacing
  }
}
