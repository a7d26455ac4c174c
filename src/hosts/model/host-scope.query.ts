import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';
import { EnumParam } from '../../common/validation/query-params.js';
import { ScopeParam, WildcardParam } from './knowledge-filter.query.js';
import type { ScopeMode, WildcardMode } from './knowledge-filter.js';

/**
 * `platform` or `domain`: the hosts a stream or a feed of changes is about (give one, or neither); and whether
 * wildcard hosts (out by default) and out-of-scope hosts (out by default) are in it.
 */
export class HostScopeQuery {
  @EnumParam(PLATFORM_SLUGS, undefined, 'Only hosts of this platform')
  platform?: string;

  @ApiPropertyOptional({ description: 'Only hosts of this tracked root domain', example: 'example.com' })
  @IsOptional()
  @IsRootDomain()
  domain?: string;

  @WildcardParam('exclude')
  wildcard: WildcardMode = 'exclude';

  @ScopeParam()
  scope: ScopeMode = 'in';
}
