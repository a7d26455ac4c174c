import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentKey, RequireScope } from './auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { ApiEnvelope } from '../common/openapi/api-responses.js';
import { MeDto } from './dto/me.dto.js';
import type { AuthenticatedKey } from './api-keys.service.js';
import { AnsweredFresh } from '../common/http/conditional-get.js';

@ApiTags('Getting started')
@Controller('me')
export class MeController {
  @Get()
  @AnsweredFresh()
  @RequireScope('read')
  @ApiOperation({
    summary: 'The identity of the presented key',
    description: "The user the key belongs to, the key's name and its scopes. A cheap way to check that a key works.",
  })
  @ApiEnvelope(MeDto)
  me(@CurrentKey() key: AuthenticatedKey) {
    return envelope({ user_id: key.userId, key: { name: key.name, scopes: key.scopes } });
  }
}
