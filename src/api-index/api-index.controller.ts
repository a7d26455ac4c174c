import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators.js';
import { RenderedJson } from '../common/rendered-json.js';
import { RouteIndex } from '../common/http/route-index.js';
import { ApiEnvelope } from '../common/openapi/api-responses.js';
import { IndexDto } from './dto/index.dto.js';

export const API_VERSION = '1';

@ApiTags('Getting started')
@Controller()
export class ApiIndexController {
  /** The index never changes while the app runs: serialised once, at the first request. */
  private body?: RenderedJson;

  constructor(private readonly routes: RouteIndex) {}

  @Get()
  @Public()
  @ApiOperation({
    summary: 'Version and the list of endpoints (public)',
    description:
      'Needs no key. Lists every endpoint of the API as `METHOD /path`, taken from the routes the server serves.',
  })
  @ApiEnvelope(IndexDto)
  index(): RenderedJson {
    this.body ??= RenderedJson.data(JSON.stringify({ version: API_VERSION, endpoints: this.routes.apiEndpoints() }));
    return this.body;
  }
}
