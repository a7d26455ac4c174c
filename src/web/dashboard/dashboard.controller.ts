import { Controller, Get, Headers, Param, Post, Query, Req, Res, UseFilters, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountError, AccountService } from '../account/account.service.js';
import { AccountPageFilter } from '../account/account-page.filter.js';
import { sendPage } from '../respond.js';
import { currentSession, requireFormPost } from '../session.js';
import type { RenderedJson } from '../../common/rendered-json.js';
import { Public } from '../../auth/auth.decorators.js';
import { userOwner } from '../../auth/api-keys.service.js';
import { HostNamePipe, RootDomainPipe } from '../../common/validation/param.pipes.js';
import { Environment } from '../../config/environment.js';
import { CtService } from '../../ct/ct.service.js';
import { DomainsService } from '../../domains/domains.service.js';
import { ListDomainsQuery } from '../../domains/dto/list-domains.query.js';
import { DomainHostsQuery, NewHostsFeedQuery, SearchHostsQuery } from '../../hosts/dto/host-queries.js';
import { OBJECT_FIELDS } from '../../hosts/model/host-fields.js';
import { HostsService } from '../../hosts/hosts.service.js';
import { PlatformsService } from '../../platforms/platforms.service.js';
import { ListScansQuery } from '../../discovery/dto/list-scans.query.js';
import { ScansService } from '../../discovery/scans.service.js';
import { StatsService } from '../../stats/stats.service.js';
import { StreamQuery } from '../../stream/dto/stream.query.js';
import { eventStreamReply } from '../../stream/event-stream-reply.js';
import { StreamService } from '../../stream/stream.service.js';
import { DASHBOARD_JS, UPLOT_CSS, UPLOT_JS } from './assets.js';
import { FormQueryInterceptor } from './form-query.interceptor.js';
import { SearchPageQuery } from './search-page.query.js';
import { CurrentViewer, DashboardPage } from './viewer.guard.js';
import { type DomainView, domainPage } from './pages/domain.js';
import { hostPage } from './pages/host.js';
import { overviewPage } from './pages/overview.js';
import { SourceHealthService } from '../../discovery/source-health.service.js';
import type { Viewer } from './pages/page.js';
import { programsPage } from './pages/programs.js';
import { searchPage } from './pages/search.js';

/** Days the overview's sparklines and a domain's chart cover. */
export const CHART_DAYS = 30;
const LIVE_LIST = 20;
const SCANS_SHOWN = 10;
/** Days the overview's table of sources covers. */
const SOURCE_DAYS = 7;

/** The data of a rendered API body (the dashboard shows what the API answers, from the same services). */
const dataOf = <T>(body: RenderedJson): { data: T; meta?: { total?: number } } =>
  JSON.parse(body.text) as { data: T; meta?: { total?: number } };

/**
 * /app: the dashboard, for owners signed in on the account page (its session cookie). Server-rendered HTML under
 * the account page's strict CSP; a small script of this origin adds charts, the live list and search as you type.
 * An owner sees what their keys can read: without an active key, no data; the queue button needs the write scope.
 */
@ApiExcludeController()
@Public()
@UseFilters(AccountPageFilter)
@UseInterceptors(FormQueryInterceptor)
@Controller('app')
export class DashboardController {
  private readonly publicOrigin: string | undefined;

  constructor(
    private readonly account: AccountService,
    private readonly platforms: PlatformsService,
    private readonly stats: StatsService,
    private readonly scans: ScansService,
    private readonly domains: DomainsService,
    private readonly hosts: HostsService,
    private readonly ct: CtService,
    private readonly sources: SourceHealthService,
    private readonly streams: StreamService,
    env: Environment,
  ) {
    this.publicOrigin = env.PUBLIC_URL ? new URL(env.PUBLIC_URL).origin : undefined;
  }

  @Get()
  @DashboardPage()
  async overview(@CurrentViewer() viewer: Viewer, @Res() reply: FastifyReply): Promise<void> {
    if (!viewer.canRead) return sendPage(reply, 200, overviewPage(viewer));
    // Taken first: with no host in the list, the live list resumes from here, and misses none recorded meanwhile.
    const tail = await this.streams.hostsTail();
    const [platforms, days, worker, logs, sources, recent] = await Promise.all([
      this.platforms.list(),
      this.stats.platformDays(CHART_DAYS),
      this.scans.status(),
      this.ct.status(),
      this.sources.report(SOURCE_DAYS),
      this.hosts.newFeed(Object.assign(new NewHostsFeedQuery(), { limit: LIVE_LIST, fields: OBJECT_FIELDS })),
    ]);
    sendPage(
      reply,
      200,
      overviewPage(viewer, {
        platforms: dataOf<never>(platforms).data,
        days,
        worker: dataOf<never>(worker).data,
        logs,
        sources: sources.data,
        recent: dataOf<never>(recent).data,
        tail,
      }),
    );
  }

  @Get('programs')
  @DashboardPage()
  async programs(
    @Query() query: ListDomainsQuery,
    @CurrentViewer() viewer: Viewer,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!viewer.canRead) return sendPage(reply, 200, programsPage(viewer));
    const page = dataOf<never[]>(await this.domains.page(query));
    sendPage(reply, 200, programsPage(viewer, { domains: page.data, query, total: page.meta?.total ?? 0 }));
  }

  @Get('domains/:domain')
  @DashboardPage()
  async domain(
    @Param('domain', RootDomainPipe) name: string,
    @Query() query: DomainHostsQuery,
    @CurrentViewer() viewer: Viewer,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sendPage(reply, 200, domainPage(viewer, name, viewer.canRead ? await this.domainView(name, query) : undefined));
  }

  /**
   * Queues a scan of the domain, as POST /api/v1/scans does: for an owner with a write key. Then back to the
   * domain's page (303), which shows the scan queued or running: a reload does not post again.
   */
  @Post('domains/:domain/scans')
  @DashboardPage()
  async queue(
    @Param('domain', RootDomainPipe) name: string,
    @CurrentViewer() viewer: Viewer,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    requireFormPost(request, this.publicOrigin, viewer.csrf);
    if (!viewer.canWrite) {
      throw new AccountError(403, 'Not allowed', 'Queueing a scan needs an active API key with the write scope.');
    }
    await this.scans.queue(name);
    void reply
      .status(303)
      .header('location', `/app/domains/${encodeURIComponent(name)}#scans`)
      .header('cache-control', 'no-store')
      .send();
  }

  @Get('search')
  @DashboardPage()
  async search(
    @Query() query: SearchPageQuery,
    @CurrentViewer() viewer: Viewer,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!viewer.canRead) return sendPage(reply, 200, searchPage(viewer));
    const q = query.q?.trim() ?? '';
    const base = { q, hosts: [], limit: query.limit, offset: query.offset };
    if (q.length < 2) {
      const problem = q ? 'Type at least 2 characters.' : 'Type part of a host name, at least 2 characters.';
      return sendPage(reply, 200, searchPage(viewer, { ...base, problem }));
    }
    const found = await this.hosts.search(
      Object.assign(new SearchHostsQuery(), { ...query, q, fields: OBJECT_FIELDS }),
    );
    sendPage(reply, 200, searchPage(viewer, { ...base, hosts: dataOf<never[]>(found).data }));
  }

  @Get('hosts/:host')
  @DashboardPage()
  async host(
    @Param('host', HostNamePipe) name: string,
    @CurrentViewer() viewer: Viewer,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sendPage(reply, 200, hostPage(viewer, name, viewer.canRead ? (await this.hosts.one(name)).data : undefined));
  }

  /**
   * The overview's live list: the API's stream of new hosts, for the session instead of a key (an EventSource
   * cannot send one). It counts against the user's STREAM_MAX_PER_KEY with their keys' streams (see userOwner).
   */
  @Get('stream')
  async stream(
    @Query() query: StreamQuery,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const user = (await currentSession(this.account, request))?.user;
    if (!user) throw new AccountError(401, 'Signed out', 'Your session has ended. Sign in again.');
    if (!user.scopes.includes('read')) {
      throw new AccountError(403, 'No key', 'The live list needs an active API key.');
    }
    const body = await this.streams.open(query, lastEventId, userOwner(user.user_id), request.server.server);
    void eventStreamReply(reply, body).send(body);
  }

  @Get('app.js')
  script(@Res() reply: FastifyReply): void {
    this.asset(reply, 'text/javascript; charset=utf-8', DASHBOARD_JS);
  }

  @Get('uplot.js')
  chartScript(@Res() reply: FastifyReply): void {
    this.asset(reply, 'text/javascript; charset=utf-8', UPLOT_JS);
  }

  @Get('uplot.css')
  chartStyles(@Res() reply: FastifyReply): void {
    this.asset(reply, 'text/css; charset=utf-8', UPLOT_CSS);
  }

  /**
   * A domain's page: its record, a page of its hosts as filtered (with everything known of each: the page shows
   * it, whatever fields the URL names), its chart and its last scans.
   */
  private async domainView(name: string, asked: DomainHostsQuery): Promise<DomainView> {
    const query = { ...asked, fields: [...OBJECT_FIELDS] };
    const tracked = await this.domains.requireTracked(name);
    const [detail, hosts, days, scans, queuedSince] = await Promise.all([
      this.domains.detail(name),
      this.hosts.listForDomain(name, query),
      this.stats.domainDays(tracked.id, CHART_DAYS),
      this.scans.list(Object.assign(new ListScansQuery(), { domain: name, limit: SCANS_SHOWN })),
      this.domains.queuedSince(tracked.id),
    ]);
    const page = dataOf<never[]>(hosts);
    return {
      domain: dataOf<never>(detail).data,
      hosts: page.data,
      total: page.meta?.total ?? 0,
      // The page's links and form keep the URL's own parameters: the fields are the page's.
      query: Object.fromEntries(Object.entries(asked).filter(([k]) => k !== 'fields')) as DomainView['query'],
      days,
      scans: dataOf<never[]>(scans).data,
      queuedSince,
    };
  }

  private asset(reply: FastifyReply, type: string, body: string): void {
    void reply.header('cache-control', 'public, max-age=3600').type(type).send(body);
  }
}
