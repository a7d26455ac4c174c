import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';
import { EnumListParam, EnumParam, TextParam } from '../../common/validation/query-params.js';
import { WindowQuery } from '../../common/validation/window.js';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';
import { HOST_FIELDS, type HostField } from '../../hosts/model/host-fields.js';
import { SCOPE_MODES, type ScopeMode } from '../../hosts/model/knowledge-filter.js';

export const EXPORT_SCOPES = ['all', 'new', 'inactive'] as const;
export type ExportScope = (typeof EXPORT_SCOPES)[number];
export const EXPORT_FORMATS = ['txt', 'csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export class ExportQuery extends WindowQuery {
  @ApiPropertyOptional({ description: 'Export one tracked root domain (not with platform)', example: 'example.com' })
  @IsOptional()
  @IsRootDomain()
  domain?: string;

  @EnumParam(PLATFORM_SLUGS, undefined, 'Export a whole platform (not with domain); neither exports everything')
  platform?: string;

  @EnumParam(EXPORT_SCOPES, 'all', 'all; new = first seen in the window (hours or since); inactive = no longer seen')
  scope: ExportScope = 'all';

  @EnumParam(
    SCOPE_MODES,
    'in',
    'in: hosts no exclusion rule of their root domain names; out: only those a rule names; all. (scope, taken by ' +
      'the contract for all/new/inactive, is another filter.)',
  )
  host_scope: ScopeMode = 'in';

  @TextParam({ description: 'Only hosts whose name contains this text (literally, case-insensitive)' })
  search?: string;

  @EnumParam(
    EXPORT_FORMATS,
    'txt',
    'txt: one host per line; csv: RFC 4180 with a header row; json: one array of objects',
  )
  format: ExportFormat = 'txt';

  @EnumListParam(
    HOST_FIELDS,
    `Extra columns after the default ones, a comma list of ${HOST_FIELDS.join(', ')}: the addresses (A and ` +
      'AAAA) and the CNAME chain of the last DNS answer, the status and title of the last HTTP probe. txt: tab-' +
      'separated after the host; csv: extra columns (addresses and chain space-separated; the chain and the title ' +
      "quoted, with a ' first inside the quotes where they start with = + - @, a tab or a CR, as a formula would); " +
      'json: extra keys in the order asked (arrays, a number, a string). Where nothing is known: empty in txt and ' +
      'csv; in json an empty array, or null.',
    'ips,status,title',
  )
  fields?: HostField[];
}
