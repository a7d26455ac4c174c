import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../common/decorators/auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { QueueScanDto } from './dto/queue-scan.dto.js';
import { ScansService } from './scans.service.js';

@ApiTags('Scans')
@Controller('scans')
export class ScansController {
  constructor(private readonly scans: ScansService) {}

  // 202: the scan is accepted for the worker and runs in the background.
  @Post()
  @HttpCode(202)
  @RequireScope('write')
  @ApiOperation({ summary: 'Queue a scan of one tracked root domain' })
  @ApiAcceptedResponse({ description: 'Queued for the worker' })
  async queue(@Body() body: QueueScanDto) {
    return envelope(await this.scans.queue(body.domain));
  }

  @Post('rescan-all')
  @HttpCode(202)
  @RequireScope('write')
  @ApiOperation({ summary: 'Mark every enabled domain due, so the worker starts a full sweep at its next tick' })
  async rescanAll() {
    return envelope(await this.scans.rescanAll());
  }
}
