import { Controller, Get, Injectable } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators.js';

/** Holds the document built at start, after every controller is known. */
@Injectable()
export class OpenApiDocument {
  document: OpenAPIObject | null = null;
}

@ApiTags('Getting started')
@Controller()
export class OpenApiController {
  constructor(private readonly holder: OpenApiDocument) {}

  @Get('openapi.json')
  @Public()
  @ApiOperation({
    summary: 'This OpenAPI 3.1 document (public)',
    description:
      'Needs no key. Describes every endpoint: parameters, defaults, response bodies and headers, and errors.',
  })
  @ApiOkResponse({
    description: 'The OpenAPI document',
    content: { 'application/json': { schema: { type: 'object' } } },
  })
  openapi(): OpenAPIObject | null {
    return this.holder.document;
  }
}
