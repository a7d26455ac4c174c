import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { EXCLUSION_KINDS, type ExclusionKind } from '../exclusion-pattern.js';

const PATTERN =
  'An exact host (`staging.example.com`), a wildcard (`*.dev.example.com`: every host under dev.example.com; ' +
  '`dev-*.example.com`: `*` inside a label is any run of label characters) or a regular expression ' +
  '(`re:^staging\\d+\\.`, RE2 syntax, matched against the lower-case host name)';

export class ExclusionDto {
  @ApiProperty({ description: "The rule's id", example: '12' }) id: string;
  @ApiProperty({ enum: EXCLUSION_KINDS }) kind: ExclusionKind;
  @ApiProperty({ description: `${PATTERN}, as kept`, example: '*.dev.example.com' }) pattern: string;
  @ApiProperty({
    enum: ['manual', 'import'],
    description:
      'manual: added through the API or the CLI; import: made from an out-of-scope entry of an imported scope ' +
      'list, and replaced when the list is imported again',
  })
  origin: 'manual' | 'import';
  @ApiProperty({ type: 'string', format: 'date-time' }) created_at: string;
}

export class ExclusionChangeMetaDto {
  @ApiProperty({
    type: 'integer',
    description: 'Hosts of the domain that moved out of scope (or back in) with this change',
  })
  hosts_moved: number;
}

export class CreateExclusionDto {
  @ApiProperty({ description: PATTERN, example: '*.dev.example.com', maxLength: 256 })
  @IsString({ message: 'pattern must be a string' })
  @IsDefined({ message: 'pattern is required' })
  pattern: string;
}
