import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../common/decorators/auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi/api-responses.js';
import { RootDomainPipe } from '../common/validation/param.pipes.js';
import { CreateExclusionDto, ExclusionChangeMetaDto, ExclusionDto } from './dto/exclusion.dto.js';
import { ScopeRulesService } from './scope-rules.service.js';

const DOMAIN = { name: 'domain', description: 'A tracked root domain', example: 'example.com' };

@ApiTags('Domains')
@RequireScope('read')
@Controller('domains/:domain/exclusions')
export class ExclusionsController {
  constructor(private readonly rules: ScopeRulesService) {}

  @Get()
  @ApiOperation({
    summary: "A root domain's exclusion rules",
    description:
      'The hosts a rule names are out of scope: still recorded, with in_scope false, and left out of host lists, ' +
      'search and the new-host feeds unless scope=out or scope=all.',
  })
  @ApiParam(DOMAIN)
  @ApiEnvelope(ExclusionDto, { isArray: true })
  @ApiErrors('invalid_domain', 'not_found')
  async list(@Param('domain', RootDomainPipe) domain: string) {
    return envelope(await this.rules.list(domain));
  }

  @Post()
  @RequireScope('write')
  @ApiOperation({
    summary: 'Add an exclusion rule; the domain’s hosts it names move out of scope at once',
    description:
      'Needs a key with the write scope. Body: `{"pattern": "*.dev.example.com"}`. A pattern the domain already ' +
      'has is kept as it is (and moves nothing). Each host that moves gets a scope_changed event. A regular ' +
      'expression must be ' +
      'RE2 syntax (no back-references or look-around), at most 256 characters.',
  })
  @ApiParam(DOMAIN)
  @ApiEnvelope(ExclusionDto, { status: 201, meta: ExclusionChangeMetaDto, description: 'The rule, as kept' })
  @ApiErrors('invalid_body', 'invalid_domain', 'not_found', 'payload_too_large')
  create(@Param('domain', RootDomainPipe) domain: string, @Body() body: CreateExclusionDto) {
    return this.rules.create(domain, body.pattern);
  }

  @Delete(':id')
  @RequireScope('write')
  @ApiOperation({
    summary: 'Remove an exclusion rule; the hosts no rule names any more come back in scope',
    description: 'Needs a key with the write scope. Each host that moves gets a scope_changed event.',
  })
  @ApiParam(DOMAIN)
  @ApiParam({ name: 'id', description: "The rule's id", example: '12' })
  @ApiEnvelope(ExclusionDto, { meta: ExclusionChangeMetaDto, description: 'The rule removed' })
  @ApiErrors('invalid_id', 'invalid_domain', 'not_found')
  remove(@Param('domain', RootDomainPipe) domain: string, @Param('id') id: string) {
    return this.rules.delete(domain, id);
  }
}
