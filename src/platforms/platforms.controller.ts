import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/auth.decorators.js';
import { PlatformSlugPipe } from '../common/validation/param.pipes.js';
import { ApiEnvelope, ApiErrors, PageMetaDto } from '../common/openapi/api-responses.js';
import { PlatformDomainDto, PlatformDto } from './dto/platform.dto.js';
import { PlatformDomainsQuery } from './dto/platform-domains.query.js';
import { PLATFORM_SLUGS } from './platform-slugs.js';
import { PlatformsService } from './platforms.service.js';
import { CachedAggregate } from '../common/http/conditional-get.js';

export const SLUG_PARAM = {
  name: 'slug',
  description: 'Platform slug (GET /platforms lists them)',
  example: 'hackerone',
  enum: PLATFORM_SLUGS,
};

@ApiTags('Platforms')
@RequireScope('read')
@Controller('platforms')
export class PlatformsController {
  constructor(private readonly platforms: PlatformsService) {}

  @Get()
  @CachedAggregate()
  @ApiOperation({
    summary: 'The tracked platforms with their counts',
    description:
      'Every platform with its counts: tracked root domains, hosts found under them, and hosts first seen in the last ' +
      '24 hours.',
  })
  @ApiEnvelope(PlatformDto, { isArray: true })
  list() {
    return this.platforms.list();
  }

  @Get(':slug')
  @CachedAggregate()
  @ApiOperation({
    summary: 'One platform',
    description: 'A platform by its slug (e.g. hackerone), with the counts GET /platforms lists.',
  })
  @ApiParam(SLUG_PARAM)
  @ApiEnvelope(PlatformDto)
  @ApiErrors('unknown_platform')
  get(@Param('slug', PlatformSlugPipe) slug: string) {
    return this.platforms.get(slug);
  }

  @Get(':slug/domains')
  @ApiOperation({
    summary: "The platform's root domains, A→Z",
    description:
      "The root domains of the platform's programs with their host totals, offset-paged; meta.total counts them all.",
  })
  @ApiParam(SLUG_PARAM)
  @ApiEnvelope(PlatformDomainDto, { isArray: true, meta: PageMetaDto })
  @ApiErrors('invalid_query', 'unknown_platform')
  domains(@Param('slug', PlatformSlugPipe) slug: string, @Query() query: PlatformDomainsQuery) {
    return this.platforms.domainsOf(slug, query.limit, query.offset);
  }
}
