import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/auth.decorators.js';
import { ApiEnvelope, ApiErrors, PageMetaDto } from '../common/openapi/api-responses.js';
import { RootDomainPipe } from '../common/validation/param.pipes.js';
import { DomainsService } from './domains.service.js';
import { DomainDetailDto, DomainDto } from './dto/domain.dto.js';
import { ListDomainsQuery } from './dto/list-domains.query.js';

@ApiTags('Domains')
@RequireScope('read')
@Controller('domains')
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @Get()
  @ApiOperation({
    summary: 'Tracked root domains',
    description:
      'Filtered by a substring of the domain (`search`), a platform and whether scanning is enabled, sorted by `sort`, offset-paged; meta.total counts every match.',
  })
  @ApiEnvelope(DomainDto, { isArray: true, meta: PageMetaDto })
  @ApiErrors('invalid_query')
  list(@Query() query: ListDomainsQuery) {
    return this.domains.page(query);
  }

  @Get(':domain')
  @ApiOperation({
    summary: 'One tracked root domain with its stats',
    description:
      'The domain record with host counts: ever found, first seen in the last 24 hours and 7 days, active and inactive.',
  })
  @ApiParam({ name: 'domain', description: 'A tracked root domain', example: 'example.com' })
  @ApiEnvelope(DomainDetailDto)
  @ApiErrors('invalid_domain', 'not_found')
  get(@Param('domain', RootDomainPipe) domain: string) {
    return this.domains.detail(domain);
  }
}
