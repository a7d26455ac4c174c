import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/auth.decorators.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi/api-responses.js';
import { StatsDto, TimeseriesMetaDto, TimeseriesPointDto, TopDomainDto, TopDomainsMetaDto } from './dto/stats.dto.js';
import { TimeseriesQuery, TopDomainsQuery } from './dto/stats.query.js';
import { StatsService } from './stats.service.js';
import { CachedAggregate } from '../common/http/conditional-get.js';

@ApiTags('Stats')
@RequireScope('read')
@Controller('stats')
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @Get()
  @CachedAggregate()
  @ApiOperation({
    summary: 'Totals, new-host counts and per-platform figures',
    description:
      'Domains and hosts tracked (active and inactive), hosts first seen in the last hour, day, week, month and 6 ' +
      'months, and each platform with its counts as GET /platforms lists them.',
  })
  @ApiEnvelope(StatsDto)
  overview() {
    return this.stats.overview();
  }

  @Get('top-domains')
  @CachedAggregate()
  @ApiOperation({
    summary: 'Domains with the most new hosts in the window; ties by domain name',
    description:
      'The window is the last `hours` (24) or starts at `since`; at most `limit` domains, the most new hosts first.',
  })
  @ApiEnvelope(TopDomainDto, { isArray: true, meta: TopDomainsMetaDto })
  @ApiErrors('invalid_query')
  topDomains(@Query() query: TopDomainsQuery) {
    return this.stats.topDomains(query);
  }

  @Get('timeseries')
  @CachedAggregate()
  @ApiOperation({
    summary: 'New hosts per bucket over the window, oldest first, empty buckets as 0',
    description: 'Buckets are aligned in UTC; the first bucket holds only hosts from since on. At most 10000 buckets.',
  })
  @ApiEnvelope(TimeseriesPointDto, { isArray: true, meta: TimeseriesMetaDto })
  @ApiErrors('invalid_query')
  timeseries(@Query() query: TimeseriesQuery) {
    return this.stats.timeseries(query);
  }
}
