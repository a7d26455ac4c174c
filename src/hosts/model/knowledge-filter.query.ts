import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { BoolParam, EnumParam } from '../../common/validation/query-params.js';
import { SCOPE_MODES, type ScopeMode, WILDCARD_MODES, type WildcardMode } from './knowledge-filter.js';

/**
 * `wildcard`: hosts that only guesses (brute force, permutations) found and that resolve to nothing but their
 * zone's wildcard answers.
 * Feeds leave them out by default; lists and search show them, flagged.
 */
export function WildcardParam(defaultValue: WildcardMode): PropertyDecorator {
  return EnumParam(
    WILDCARD_MODES,
    defaultValue,
    'Wildcard hosts (only guesses, brute force or permutations, found them, and they answer as any name under ' +
      'their zone would): ' +
      `exclude, include or only (default ${defaultValue})`,
  );
}

/** `scope`: hosts in scope (no exclusion rule of their root domain names them), out of it, or all. */
export function ScopeParam(): PropertyDecorator {
  return EnumParam(
    SCOPE_MODES,
    'in',
    'in: hosts no exclusion rule of their root domain names; out: only those the rules exclude; all: both (default in)',
  );
}

/** resolves, status, takeover and cname: filters on what the service knows of each host (additive to the contract). */
class KnowledgeFilterFields {
  @BoolParam(undefined, 'true: only hosts whose last DNS answer has an address; false: only hosts without one')
  resolves?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 100,
    maximum: 599,
    description: 'Only hosts whose HTTP probe answered this status',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value,
  )
  @Min(100, { message: 'status must be an HTTP status from 100 to 599' })
  @Max(599, { message: 'status must be an HTTP status from 100 to 599' })
  @IsInt({ message: 'status must be an HTTP status from 100 to 599' })
  status?: number;

  @BoolParam(undefined, 'true: only takeover candidates; false: none of them')
  takeover?: boolean;

  @ApiPropertyOptional({
    description: 'Only hosts whose CNAME chain has a name that is this suffix or ends with it',
    example: 'azurewebsites.net',
    maxLength: 253,
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @Matches(/^(?=.{1,253}$)[a-z0-9_-]+(\.[a-z0-9_-]+)*$/, {
    message: 'cname must be a name suffix such as azurewebsites.net',
  })
  cname?: string;

  @ScopeParam()
  scope: ScopeMode = 'in';
}

/** The knowledge filters of host lists and search, which show wildcard hosts unless told otherwise. */
export class KnowledgeFilterQuery extends KnowledgeFilterFields {
  @WildcardParam('include')
  wildcard: WildcardMode = 'include';
}

/** The knowledge filters of the new-host feeds, which leave wildcard hosts out unless told otherwise. */
export class FeedKnowledgeQuery extends KnowledgeFilterFields {
  @WildcardParam('exclude')
  wildcard: WildcardMode = 'exclude';
}
