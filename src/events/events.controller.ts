import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/auth.decorators.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi/api-responses.js';
import { EventsMetaDto, HostEventDto } from './dto/event.dto.js';
import { EventsQuery } from './dto/events.query.js';
import { EventsService } from './events.service.js';

@ApiTags('Events')
@RequireScope('read')
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    summary: 'Every change to the hosts, oldest first, on a cursor',
    description:
      'host_new (a host first found), host_gone (a scan no longer saw it), host_back (seen again), dns_changed ' +
      '(its DNS answer changed; before and after carry both), http_changed (the probe of its web server changed ' +
      'in listening, status or title), takeover_candidate (its alias points at a service the takeover list marks ' +
      'vulnerable, shown unclaimed; after names it), wildcard_detected (a zone answers every name under it; ' +
      'after is the zone and its answers). Arrivals of wildcard hosts are left out unless wildcard=include. ' +
      'Poll with `after` = meta.after: no change is ' +
      'skipped or repeated, even one whose transaction commits late. Filters: type (a comma list), platform or domain.',
  })
  @ApiEnvelope(HostEventDto, { isArray: true, meta: EventsMetaDto })
  @ApiErrors('invalid_domain', 'invalid_query', 'not_found')
  list(@Query() query: EventsQuery) {
    return this.events.list(query);
  }
}
