import { IsOptional } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';
import { EnumParam, LimitParam, OffsetParam } from '../../common/validation/query-params.js';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';
import { SCAN_STATUSES, type ScanStatus } from '../entities/scan.entity.js';

export class ListScansQuery {
  @ApiPropertyOptional({ description: 'Only scans of this tracked root domain', example: 'example.com' })
  @IsOptional()
  @IsRootDomain()
  domain?: string;

  @EnumParam(PLATFORM_SLUGS, undefined, 'Only scans of domains of this platform')
  platform?: string;

  @EnumParam(SCAN_STATUSES, undefined, 'Only scans in this status')
  status?: ScanStatus;

  @LimitParam(50, 500)
  limit = 50;

  @OffsetParam()
  offset = 0;
}
