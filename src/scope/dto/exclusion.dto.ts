import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { TextParam } from '../../common/validation/query-params.js';
import { EXCLUSION_KINDS, type ExclusionKind, MAX_PATTERN_LENGTH } from '../exclusion-pattern.js';

const PATTERN =
  'An exact host (`staging.example.com`), a wildcard (`*.dev.example.com`: every host under dev.example.com; ' +
  '`dev-*.example.com`: `*` inside a label is any run of label characters) or a regular expression ' +
  '(`re:^staging\\d+\\.`, RE2 syntax as PostgreSQL reads it too, matched against the lower-case host name)';

/** What the body's pattern must be before it is read: 1 to 256 characters, no C0 or C1 control character. */
const PATTERN_SCHEMA = {
  minLength: 1,
  maxLength: MAX_PATTERN_LENGTH,
  pattern: '^[^\\x00-\\x1f\\x7f-\\x9f]+$',
} as const;

/** A rule's id as the paths take it (`/exclusions/{id}`): digits, as the service checks them. */
export const RULE_ID_SCHEMA = { type: 'string', pattern: '^[0-9]{1,18}$' } as const;

export class ExclusionDto {
  @ApiProperty({ description: "The rule's id", example: '12', pattern: RULE_ID_SCHEMA.pattern }) id: string;
  @ApiProperty({ enum: EXCLUSION_KINDS }) kind: ExclusionKind;
  @ApiProperty({ description: `${PATTERN}, as kept`, example: '*.dev.example.com' }) pattern: string;
  @ApiProperty({
    enum: ['manual', 'import', 'program'],
    description:
      'manual: added through the API or the CLI; import: made from an out-of-scope entry of an imported scope ' +
      "list, and replaced when the list is imported again; program: a rule of the domain's program " +
      '(`/platforms/{slug}/exclusions`), removed there',
  })
  origin: 'manual' | 'import' | 'program';
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'For origin program, the id of the program rule this stands for; null otherwise',
    example: null,
  })
  program_rule: string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) created_at: string;
}

export class ProgramExclusionDto {
  @ApiProperty({ description: "The program rule's id", example: '3', pattern: RULE_ID_SCHEMA.pattern }) id: string;
  @ApiProperty({ description: 'The program, named as its root domains name it', example: 'Example Corp' })
  program: string;
  @ApiProperty({ enum: EXCLUSION_KINDS }) kind: ExclusionKind;
  @ApiProperty({ description: `${PATTERN}, as kept`, example: 're:^staging\\d+\\.' }) pattern: string;
  @ApiProperty({
    type: 'integer',
    description: "The program's tracked root domains the rule applies to now (it also applies to those added later)",
  })
  domains: number;
  @ApiProperty({ type: 'string', format: 'date-time' }) created_at: string;
}

const PROGRAM_NAME = 'The program, named exactly as its root domains name it (`program` of `/domains`)';

export class ProgramExclusionsQuery {
  @TextParam({ maxLength: 200, description: `Only the rules of this program. ${PROGRAM_NAME}` })
  program?: string;
}

export class ExclusionChangeMetaDto {
  @ApiProperty({
    type: 'integer',
    description: 'Hosts that moved out of scope (or back in) with this change',
  })
  hosts_moved: number;
}

export class CreateProgramExclusionDto {
  @ApiProperty({ description: PROGRAM_NAME, example: 'Example Corp', maxLength: 200 })
  @Matches(/^[^\p{Cc}]*$/u, { message: 'program must not contain control characters' })
  @MaxLength(200, { message: 'program must be at most 200 characters' })
  @MinLength(1, { message: 'program must not be empty' })
  @IsString({ message: 'program must be a string' })
  @IsDefined({ message: 'program is required' })
  program: string;

  @ApiProperty({ description: PATTERN, example: 're:^staging\\d+\\.', ...PATTERN_SCHEMA })
  @IsString({ message: 'pattern must be a string' })
  @IsDefined({ message: 'pattern is required' })
  pattern: string;
}

export class CreateExclusionDto {
  @ApiProperty({ description: PATTERN, example: '*.dev.example.com', ...PATTERN_SCHEMA })
  @IsString({ message: 'pattern must be a string' })
  @IsDefined({ message: 'pattern is required' })
  pattern: string;
}
