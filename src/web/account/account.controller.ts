import { Controller, Get, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../../auth/entities/api-key.entity.js';
import { Public } from '../../auth/auth.decorators.js';
import { Environment } from '../../config/environment.js';
import type { SessionUser } from './account.repository.js';
import { AccountError, AccountService, randomToken, SESSION_DAYS } from './account.service.js';
import { AccountPageFilter } from './account-page.filter.js';
import { THEME_CSS } from '../assets.js';
import { ACCOUNT_JS } from './assets.js';
import { UUID } from '../../common/validation/param.pipes.js';
import { WebhookInputError, WebhooksService } from '../../notify/webhooks.service.js';
import { maskUrl } from '../../notify/webhook-payload.js';
import type { WebhookRow } from '../../notify/webhooks.repository.js';
import type { PageUser } from '../layout.js';
import { type AccountExtras, accountPage } from './pages/account.js';
import { signInPage } from './pages/sign-in.js';
import { DELIVERIES_SHOWN, type WebhooksView } from './pages/webhooks.js';
import { sendPage } from '../respond.js';
import {
  currentSession,
  LEGACY_SESSION_PATH,
  formField as field,
  requestCookies,
  requireFormPost,
  SESSION_COOKIE,
  sessionIds,
} from '../session.js';

const SIGN_IN_COOKIE = 'sm_sign_in';

type Form = Record<string, unknown>;

/**
 * Where to go once signed in: a page of the dashboard or the account area named by its path (and query), never
 * another origin (no "//host", no scheme, no backslash a browser would read as a slash).
 */
export function nextPage(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2000) return undefined;
  // Printable ASCII but the backslash: anything else could not stand in a Location header.
  return /^\/(app|account)(?:[/?#][!-[\]-~]*)?$/.test(value) ? value : undefined;
}

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
    private readonly webhooks: WebhooksService,
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
    const next = nextPage((request.query as Form).next);
    const signedIn = await currentSession(this.account, request);
    if (signedIn) {
      // A cookie from before the session was shared with /app (Path=/account) moves to Path=/, or /app, which
      // cannot see it, would send the browser here and here back there.
      this.setSession(request, reply, signedIn.id, SESSION_DAYS * 86_400);
      return this.redirect(reply, next ?? '/account');
    }
    // A second sign-in tab keeps the first one's token valid.
    const current = requestCookies(request)[SIGN_IN_COOKIE];
    const csrf = current && /^[\w-]{43}$/.test(current) ? current : randomToken();
    this.setCookie(request, reply, SIGN_IN_COOKIE, csrf, 3600, 'strict');
    sendPage(reply, 200, signInPage(csrf, undefined, '', next));
  }

  @Post('sign-in')
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const expected = requestCookies(request)[SIGN_IN_COOKIE];
    requireFormPost(request, this.publicOrigin, expected);
    const email = field(request.body, 'email') ?? '';
    const next = nextPage(field(request.body, 'next'));
    try {
      const session = await this.account.signIn(email, field(request.body, 'password') ?? '', request.ip);
      this.setCookie(request, reply, SIGN_IN_COOKIE, '', 0, 'strict');
      this.setSession(request, reply, session, SESSION_DAYS * 86_400);
      this.redirect(reply, next ?? '/account');
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      void reply.headers(error.headers);
      sendPage(reply, error.status, signInPage(expected, error.message, email.slice(0, 254), next));
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
    for (const id of sessionIds(request)) await this.account.signOut(id);
    this.setSession(request, reply, '', 0);
    this.redirect(reply, '/account/sign-in');
  }

  @Post('tokens')
  async createToken(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const user = await this.formUser(request);
    const name = field(request.body, 'name') ?? '';
    const scope = field(request.body, 'scope');
    if (scope !== 'read' && scope !== 'write') {
      return sendPage(reply, 400, await this.render(user, { problem: 'Choose the read or the read and write scope.' }));
    }
    const scopes: Scope[] = scope === 'write' ? ['read', 'write'] : ['read'];
    const result = await this.account.createKey(user.user_id, name, scopes);
    if ('problem' in result) return sendPage(reply, 400, await this.render(user, { problem: result.problem }));
    sendPage(reply, 201, await this.render(user, { created: { name: name.trim(), token: result.token } }));
  }

  /** Adds a webhook of the user's, as POST /api/v1/webhooks does; its whole URL and secret are shown this once. */
  @Post('webhooks')
  async createWebhook(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const user = await this.formUser(request);
    const body = (request.body ?? {}) as Form;
    const list = (name: string) => field(body, name)?.trim() || undefined;
    const types = body.types === undefined ? [] : ([] as unknown[]).concat(body.types).map(String);
    const digest = list('digest_minutes');
    try {
      const { webhook, secret } = await this.webhooks.create(
        {
          url: field(body, 'url')?.trim() ?? '',
          format: field(body, 'format'),
          chatId: list('chat_id'),
          platforms: list('platforms'),
          domains: list('domains'),
          types: types.length ? types : ['host_new'],
          scope: field(body, 'scope'),
          digestMinutes: digest === undefined ? undefined : Number(digest),
          resolvingOnly: field(body, 'resolving_only') === 'on',
          makeSecret: true,
        },
        user.user_id,
      );
      sendPage(reply, 201, await this.render(user, {}, { created: { url: webhook.url, secret } }));
    } catch (e) {
      if (!(e instanceof WebhookInputError)) throw e;
      sendPage(reply, 400, await this.render(user, {}, { problem: e.message }));
    }
  }

  @Post('webhooks/:id/test')
  async testWebhook(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string) {
    const user = await this.formUser(request);
    const webhook = await this.ownedWebhook(user, id);
    const delivery = await this.webhooks.test(webhook);
    sendPage(reply, 200, await this.render(user, {}, { tested: { url: maskUrl(webhook.url), delivery } }));
  }

  @Post('webhooks/:id/remove')
  async removeWebhook(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string) {
    const user = await this.formUser(request);
    await this.ownedWebhook(user, id);
    await this.webhooks.removeOwned(id, user.user_id);
    this.redirect(reply, '/account#webhooks');
  }

  @Post('webhooks/:id/deliveries/:delivery/retry')
  async retryDelivery(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
    @Param('delivery') deliveryId: string,
  ) {
    const user = await this.formUser(request);
    await this.ownedWebhook(user, id);
    if (!UUID.test(deliveryId) || !(await this.webhooks.retry(id, deliveryId))) throw this.noWebhook();
    this.redirect(reply, '/account#webhooks');
  }

  @Post('tokens/:id/revoke')
  async revoke(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string): Promise<void> {
    const user = await this.formUser(request);
    await this.account.revokeKey(user.user_id, id);
    this.redirect(reply, '/account');
  }

  @Get('account.css')
  stylesheet(@Res() reply: FastifyReply): void {
    this.asset(reply, 'text/css; charset=utf-8', THEME_CSS);
  }

  @Get('account.js')
  script(@Res() reply: FastifyReply): void {
    this.asset(reply, 'text/javascript; charset=utf-8', ACCOUNT_JS);
  }

  private async user(request: FastifyRequest): Promise<SessionUser | undefined> {
    return (await currentSession(this.account, request))?.user;
  }

  /** The user behind a form post: a current session, and the form carries that session's CSRF token. */
  private async formUser(request: FastifyRequest): Promise<SessionUser> {
    const user = await this.user(request);
    if (!user) throw new AccountError(401, 'Signed out', 'Your session has ended. Sign in again.');
    requireFormPost(request, this.publicOrigin, user.csrf_token);
    return user;
  }

  private async render(
    user: SessionUser,
    keys: Omit<AccountExtras, 'webhooks'> = {},
    webhooks: Omit<WebhooksView, 'webhooks'> = {},
  ): Promise<string> {
    const pageUser: PageUser = { email: user.email, name: user.name, csrf: user.csrf_token };
    const own = await this.webhooks.list(user.user_id);
    const recent = await this.webhooks.recentDeliveries(
      own.map((webhook) => webhook.id),
      DELIVERIES_SHOWN,
    );
    const withDeliveries = own.map((webhook) => ({ webhook, deliveries: recent.get(webhook.id) ?? [] }));
    return accountPage(pageUser, await this.account.listKeys(user.user_id), {
      ...keys,
      webhooks: { ...webhooks, webhooks: withDeliveries },
    });
  }

  /** The user's webhook: another user's, or none, is a 404 as for keys. */
  private async ownedWebhook(user: SessionUser, id: string): Promise<WebhookRow> {
    const webhook = UUID.test(id) ? await this.webhooks.findOwned(id.toLowerCase(), user.user_id) : null;
    if (!webhook) throw this.noWebhook();
    return webhook;
  }

  private noWebhook(): AccountError {
    return new AccountError(404, 'Not found', 'You have no webhook with this id.');
  }

  private asset(reply: FastifyReply, type: string, body: string): void {
    void reply.header('cache-control', 'public, max-age=3600').type(type).send(body);
  }

  private redirect(reply: FastifyReply, to: string): void {
    void reply.status(303).header('location', to).header('cache-control', 'no-store').send();
  }

  /** The session cookie at Path=/ (the dashboard reads it too), and the one of the old path cleared. */
  private setSession(request: FastifyRequest, reply: FastifyReply, value: string, maxAge: number): void {
    this.setCookie(request, reply, SESSION_COOKIE, '', 0, 'lax', LEGACY_SESSION_PATH);
    this.setCookie(request, reply, SESSION_COOKIE, value, maxAge, 'lax');
  }

  /** HttpOnly, Path=/ for the session (the dashboard at /app reads it too) and /account otherwise, Secure when the request came over HTTPS (see TRUST_PROXY); max-age 0 clears. */
  private setCookie(
    request: FastifyRequest,
    reply: FastifyReply,
    name: string,
    value: string,
    maxAge: number,
    sameSite: 'lax' | 'strict',
    path = name === SESSION_COOKIE ? '/' : '/account',
  ): void {
    const cookie = stringifySetCookie({
      name,
      value,
      path,
      httpOnly: true,
      sameSite,
      secure: request.protocol === 'https',
      maxAge,
    });
    void reply.header('set-cookie', cookie); // Fastify adds each Set-Cookie rather than replacing
  }
}
