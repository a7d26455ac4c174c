import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../auth/auth.decorators.js';
import { envelope } from '../common/envelope.js';
import { ApiEnvelope } from '../common/openapi/api-responses.js';
import { CtService } from './ct.service.js';
import { CtLogDto } from './dto/ct-log.dto.js';
import { AnsweredFresh } from '../common/http/conditional-get.js';

@ApiTags('Certificate Transparency')
@RequireScope('read')
@Controller('ct')
export class CtController {
  constructor(private readonly ct: CtService) {}

  @Get('logs')
  @AnsweredFresh()
  @ApiOperation({
    summary: 'The Certificate Transparency logs the worker follows, and where each stands',
    description:
      'Every log in CT_LOGS (and every log followed before), by URL: its tree size at the last read, the position ' +
      'up to which its entries are recorded, how far behind that is, how many entries and matching host names it ' +
      'gave, and its last error. Empty when no log is followed.',
  })
  @ApiEnvelope(CtLogDto, { isArray: true })
  async logs() {
    return envelope(await this.ct.status());
  }
}
