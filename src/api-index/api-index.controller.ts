import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/decorators/auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { RouteIndex } from '../common/http/route-index.js';
import { ApiEnvelope } from '../common/openapi/api-responses.js';
import { IndexDto } from './dto/index.dto.js';

export const API_VERSION = '1';

@ApiTags('Getting started')
@Controller()
export class ApiIndexController {
  constructor(private readonly routes: RouteIndex) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Version and the list of endpoints (public)' })
  @ApiEnvelope(IndexDto)
  index() {
    return envelope({ version: API_VERSION, endpoints: this.routes.apiEndpoints() });
  }
}
