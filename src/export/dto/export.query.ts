import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';
import { EnumParam, TextParam } from '../../common/validation/query-params.js';
import { WindowQuery } from '../../common/validation/window.js';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';
import type { HostField } from '../../hosts/model/host-fields.js';
import { FieldsParam } from '../../hosts/model/host-fields.query.js';
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

  @FieldsParam(
    'Extra columns after the default ones. txt: tab-separated after the host; csv: extra columns (addresses and ' +
      "chain space-separated; the chain and the title quoted, with a ' first inside the quotes where they start " +
      'with = + - @, a tab or a CR, as a formula would); in both, dns, http and takeover as their JSON text (quoted ' +
      'in csv) and wildcard as true or false. json: extra keys in the order asked. Where nothing is known: empty ' +
      'in txt and csv; in json an empty array, or null.',
  )
  fields?: HostField[];
}
