import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { SLUG_PARAM } from '../platforms/platforms.controller.js';
import { RequireScope } from '../auth/auth.decorators.js';
import { ApiEnvelope, ApiErrors, PageMetaDto, WindowMetaDto } from '../common/openapi/api-responses.js';
import { HostNamePipe, PlatformSlugPipe, RootDomainPipe } from '../common/validation/param.pipes.js';
import {
  DomainHostDto,
  DomainNewHostDto,
  FeedHostDto,
  FeedMetaDto,
  HostDetailDto,
  PlatformFeedMetaDto,
  PlatformHostDto,
  SearchHostDto,
  SearchMetaDto,
} from './dto/host.dto.js';
import {
  DomainHostsQuery,
  DomainNewHostsQuery,
  NewHostsFeedQuery,
  PlatformHostsQuery,
  PlatformNewHostsQuery,
  SearchHostsQuery,
} from './dto/host-queries.js';
import { HostsService } from './hosts.service.js';

const DOMAIN_PARAM = { name: 'domain', description: 'A tracked root domain', example: 'example.com' };

@ApiTags('Domains')
@RequireScope('read')
@Controller('domains/:domain/subdomains')
export class DomainHostsController {
  constructor(private readonly hosts: HostsService) {}

  @Get()
  @ApiOperation({
    summary: "A domain's hosts, newest first",
    description:
      'All hosts, only the new ones (first seen in the last 24 hours) or only the inactive ones (`filter`), optionally those containing `search`; offset-paged, meta.total counts every match.',
  })
  @ApiParam(DOMAIN_PARAM)
  @ApiEnvelope(DomainHostDto, { isArray: true, meta: PageMetaDto })
  @ApiErrors('invalid_domain', 'invalid_query', 'not_found')
  list(@Param('domain', RootDomainPipe) domain: string, @Query() query: DomainHostsQuery) {
    return this.hosts.listForDomain(domain, query);
  }

  @Get('new')
  @ApiOperation({
    summary: "A domain's hosts first seen in the window, newest first",
    description:
      'The window is the last `hours` (24) or starts at `since`; meta gives its start and the rows returned.',
  })
  @ApiParam(DOMAIN_PARAM)
  @ApiEnvelope(DomainNewHostDto, { isArray: true, meta: WindowMetaDto })
  @ApiErrors('invalid_domain', 'invalid_query', 'not_found')
  newHosts(@Param('domain', RootDomainPipe) domain: string, @Query() query: DomainNewHostsQuery) {
    return this.hosts.newForDomain(domain, query);
  }
}

@ApiTags('Subdomains')
@RequireScope('read')
@Controller('subdomains')
export class SubdomainsController {
  constructor(private readonly hosts: HostsService) {}

  @Get('new')
  @ApiOperation({
    summary: 'New hosts across all programs, newest first, cursor-paged',
    description:
      'Follow meta.next_cursor (pass before_ts and before_id back) until it is absent. The walk neither skips nor repeats a row, even while new hosts arrive: those are newer than the first page and belong to the next poll.',
  })
  @ApiEnvelope(FeedHostDto, { isArray: true, meta: FeedMetaDto })
  @ApiErrors('invalid_query')
  newFeed(@Query() query: NewHostsFeedQuery) {
    return this.hosts.newFeed(query);
  }

  @Get('search')
  @ApiOperation({
    summary: 'Hosts whose name contains q (literally, case-insensitive), newest first',
    description:
      'Searches every host of every program. `q` needs at least 2 characters; `%` and `_` are matched as themselves.',
  })
  @ApiEnvelope(SearchHostDto, { isArray: true, meta: SearchMetaDto })
  @ApiErrors('invalid_query')
  search(@Query() query: SearchHostsQuery) {
    return this.hosts.search(query);
  }
}

@ApiTags('Platforms')
@RequireScope('read')
@Controller('platforms/:slug/subdomains')
export class PlatformHostsController {
  constructor(private readonly hosts: HostsService) {}

  @Get()
  @ApiOperation({
    summary: "Every host of the platform's programs, program after program (bulk feed)",
    description:
      'Ordered by root domain, then host. Follow meta.next_cursor (or the X-Next-Cursor header with format=txt) until it is null (absent) to get every matching host exactly once. Cursors are opaque; an altered one answers 400 invalid_query.',
  })
  @ApiParam(SLUG_PARAM)
  @ApiProduces('application/json', 'text/plain')
  @ApiExtraModels(PlatformHostDto, PlatformFeedMetaDto)
  @ApiResponse({
    status: 200,
    description:
      'json: the envelope. txt: one host per line, the next cursor in X-Next-Cursor (absent on the last page).',
    headers: {
      'X-Next-Cursor': {
        description: 'format=txt only: cursor of the next page; absent on the last page',
        schema: { type: 'string' },
      },
    },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['data', 'meta'],
          properties: {
            data: { type: 'array', items: { $ref: getSchemaPath(PlatformHostDto) } },
            meta: { $ref: getSchemaPath(PlatformFeedMetaDto) },
          },
        },
      },
      'text/plain': { schema: { type: 'string', example: 'a.example.com\nb.example.com\n' } },
    },
  })
  @ApiErrors('invalid_query', 'unknown_platform')
  async subdomains(
    @Param('slug', PlatformSlugPipe) slug: string,
    @Query() query: PlatformHostsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if (query.format === 'json') return this.hosts.platformPage(slug, query);
    const page = await this.hosts.platformText(slug, query);
    if (page.nextCursor) void reply.header('x-next-cursor', page.nextCursor);
    void reply.type('text/plain; charset=utf-8');
    return page.text;
  }

  @Get('new')
  @ApiOperation({
    summary: "The platform's hosts first seen in the window, newest first",
    description: "Hosts of the platform's root domains; the window is the last `hours` (24) or starts at `since`.",
  })
  @ApiParam(SLUG_PARAM)
  @ApiEnvelope(FeedHostDto, { isArray: true, meta: WindowMetaDto })
  @ApiErrors('invalid_query', 'unknown_platform')
  newHosts(@Param('slug', PlatformSlugPipe) slug: string, @Query() query: PlatformNewHostsQuery) {
    return this.hosts.newForPlatform(slug, query);
  }
}

@ApiTags('Subdomains')
@RequireScope('read')
@Controller('hosts')
export class HostController {
  constructor(private readonly hosts: HostsService) {}

  @Get(':host')
  @ApiOperation({
    summary: 'One host: what is known of it, and its history of changes',
    description:
      'Its root domain and platform, first and last seen, sources, its DNS answer (dns), and its changes newest ' +
      'first, as GET /events gives them. A host under two tracked roots (example.com and shop.example.com) is ' +
      'shown under the more specific one.',
  })
  @ApiParam({ name: 'host', description: 'A host name, as the lists show it', example: 'api.example.com' })
  @ApiEnvelope(HostDetailDto)
  @ApiErrors('invalid_domain', 'not_found')
  one(@Param('host', HostNamePipe) host: string) {
    return this.hosts.one(host);
  }
}
