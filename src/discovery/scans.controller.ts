import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { ApiEnvelope, ApiErrors, PageMetaDto } from '../common/openapi/api-responses.js';
import { UuidPipe } from '../common/validation/param.pipes.js';
import { ListScansQuery } from './dto/list-scans.query.js';
import { QueueScanDto } from './dto/queue-scan.dto.js';
import { QueuedScanDto, RescanAllDto, ScanDto, WorkerStatusDto } from './dto/scan.dto.js';
import { ScansService } from './scans.service.js';
import { SourceHealthDto, SourceHealthMetaDto, SourceHealthQuery } from './dto/source-health.dto.js';
import { SourceHealthService } from './source-health.service.js';
import { CachedAggregate } from '../common/http/conditional-get.js';

@ApiTags('Scans')
@RequireScope('read')
@Controller('scans')
export class ScansController {
  constructor(
    private readonly scans: ScansService,
    private readonly health: SourceHealthService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Scans, newest first',
    description: "To see whether a queued scan has run, list the domain's scans with limit=1 and read the first row.",
  })
  @ApiEnvelope(ScanDto, { isArray: true, meta: PageMetaDto })
  @ApiErrors('invalid_query', 'invalid_domain', 'not_found')
  list(@Query() query: ListScansQuery) {
    return this.scans.list(query);
  }

  @Get('status')
  @CachedAggregate()
  @ApiOperation({
    summary: "The worker's health and scan cycle",
    description:
      'Health: scans running now, scans finished and failed in the last 30 minutes, the last error. Cycle: domains tracked, ' +
      'enabled, due and queued, the scan interval and the share of enabled domains scanned within it.',
  })
  @ApiEnvelope(WorkerStatusDto)
  status() {
    return this.scans.status();
  }

  @Get('sources')
  @CachedAggregate()
  @ApiOperation({
    summary: 'What each discovery source is worth: successes, failures, latency and hosts found, by day',
    description:
      'Over the scans that ended today (UTC) and the `days` - 1 days before (of one root with `domain`): per source, ' +
      'the scans that ran it and succeeded, those that ended in its error (and the last message), the median and ' +
      '95th percentile of the time its slices took a scan (of every root: from daily roll-ups, to within 5 %), the ' +
      'names it reported, how many of them the scans saw (resolved, with ' +
      'RESOLVE=on) and how many were new, the same by day, and `flooding` when it reported at least 100 names of ' +
      'which fewer than half resolved. The sources SCAN_SOURCES runs come first, in its order. The CT follower, which ' +
      'is no scan source, is at GET /ct/logs.',
  })
  @ApiEnvelope(SourceHealthDto, { isArray: true, meta: SourceHealthMetaDto })
  @ApiErrors('invalid_query', 'invalid_domain', 'not_found')
  async sources(@Query() query: SourceHealthQuery) {
    const { data, meta } = await this.health.report(query.days, query.domain);
    return envelope(data, meta);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One scan',
    description: 'A scan by its id (a UUID, as listed by GET /scans), with its domain, trigger, status and counts.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(ScanDto)
  @ApiErrors('invalid_id', 'not_found')
  get(@Param('id', UuidPipe) id: string) {
    return this.scans.get(id);
  }

  // 202: the scan is accepted for the worker and runs in the background.
  @Post()
  @HttpCode(202)
  @RequireScope('write')
  @ApiOperation({
    summary: 'Queue a scan of one tracked root domain; the worker starts it at its next tick',
    description:
      'Needs a key with the write scope. Body: `{"domain": "example.com"}`, a tracked root domain. Queueing a domain that is already queued keeps its place. A domain whose scan is running stays queued: a new scan starts when that one ends. Follow it with GET /scans?domain=…&limit=1.',
  })
  @ApiEnvelope(QueuedScanDto, { status: 202, description: 'Queued for the worker' })
  @ApiErrors('invalid_body', 'invalid_domain', 'not_found', 'payload_too_large')
  async queue(@Body() body: QueueScanDto) {
    return envelope(await this.scans.queue(body.domain));
  }

  @Post('rescan-all')
  @HttpCode(202)
  @RequireScope('write')
  @ApiOperation({
    summary: 'Mark every enabled domain due, so the worker starts a full sweep at its next tick',
    description: 'Needs a key with the write scope; takes no body. Answers with the number of domains marked due.',
  })
  @ApiEnvelope(RescanAllDto, { status: 202, description: 'Domains marked due' })
  async rescanAll() {
    return envelope(await this.scans.rescanAll());
  }
}
