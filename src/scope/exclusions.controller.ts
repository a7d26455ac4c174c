import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi/api-responses.js';
import { PlatformSlugPipe, RootDomainPipe } from '../common/validation/param.pipes.js';
import {
  CreateExclusionDto,
  CreateProgramExclusionDto,
  ExclusionChangeMetaDto,
  ExclusionDto,
  ProgramExclusionDto,
  ProgramExclusionsQuery,
  RULE_ID_SCHEMA,
} from './dto/exclusion.dto.js';
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
      'expression must be RE2 syntax (no back-references or look-around) that PostgreSQL reads the same way and ' +
      'compiles (no repetition count over 255, no \\x{…}, no flags but a leading (?i)), at most 256 characters.',
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
  @ApiParam({ name: 'id', description: "The rule's id", example: '12', schema: RULE_ID_SCHEMA })
  @ApiEnvelope(ExclusionDto, { meta: ExclusionChangeMetaDto, description: 'The rule removed' })
  @ApiErrors('invalid_id', 'invalid_domain', 'not_found')
  remove(@Param('domain', RootDomainPipe) domain: string, @Param('id') id: string) {
    return this.rules.delete(domain, id);
  }
}

const SLUG = { name: 'slug', description: 'A platform slug', example: 'hackerone' };

@ApiTags('Platforms')
@RequireScope('read')
@Controller('platforms/:slug/exclusions')
export class ProgramExclusionsController {
  constructor(private readonly rules: ScopeRulesService) {}

  @Get()
  @ApiOperation({
    summary: "The exclusion rules of a platform's programs",
    description:
      "A program's rule applies to each of its root domains, tracked now or later: their lists show it with " +
      'origin program.',
  })
  @ApiParam(SLUG)
  @ApiEnvelope(ProgramExclusionDto, { isArray: true })
  @ApiErrors('invalid_query', 'unknown_platform')
  async list(@Param('slug', PlatformSlugPipe) slug: string, @Query() query: ProgramExclusionsQuery) {
    return envelope(await this.rules.listProgram(slug, query.program ?? null));
  }

  @Post()
  @RequireScope('write')
  @ApiOperation({
    summary: "Add an exclusion rule to a program; its root domains' hosts it names move out of scope at once",
    description:
      'Needs a key with the write scope. Body: `{"program": "Example Corp", "pattern": "re:^staging\\d+\\."}`. ' +
      'The program must have a tracked root domain on the platform. The rule also applies to root domains tracked ' +
      'under the program later. A pattern the program already has is kept as it is (and moves nothing).',
  })
  @ApiParam(SLUG)
  @ApiEnvelope(ProgramExclusionDto, { status: 201, meta: ExclusionChangeMetaDto, description: 'The rule, as kept' })
  @ApiErrors('invalid_body', 'unknown_platform', 'not_found', 'payload_too_large')
  create(@Param('slug', PlatformSlugPipe) slug: string, @Body() body: CreateProgramExclusionDto) {
    return this.rules.createProgram(slug, body.program, body.pattern);
  }

  @Delete(':id')
  @RequireScope('write')
  @ApiOperation({
    summary: "Remove a program's exclusion rule from all its root domains",
    description: 'Needs a key with the write scope. Each host that comes back in scope gets a scope_changed event.',
  })
  @ApiParam(SLUG)
  @ApiParam({ name: 'id', description: "The program rule's id", example: '3', schema: RULE_ID_SCHEMA })
  @ApiEnvelope(ProgramExclusionDto, { meta: ExclusionChangeMetaDto, description: 'The rule removed' })
  @ApiErrors('invalid_id', 'unknown_platform', 'not_found')
  remove(@Param('slug', PlatformSlugPipe) slug: string, @Param('id') id: string) {
    return this.rules.deleteProgram(slug, id);
  }
}
