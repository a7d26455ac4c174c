import { ApiProperty } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';
import { DaysParam } from '../../common/validation/query-params.js';
import { SCAN_SOURCE_NAMES } from '../../config/environment.js';

export class SourceHealthQuery {
  @ApiPropertyOptional({ description: 'Only scans of this tracked root domain', example: 'example.com' })
  @IsOptional()
  @IsRootDomain()
  domain?: string;

  @DaysParam(30, 365, 'Scans that ended today (UTC) and the days - 1 days before (default 30, maximum 365)')
  days = 30;
}

export class SourceDayDto {
  @ApiProperty({ format: 'date', example: '2026-12-01' }) day: string;
  @ApiProperty({ type: 'integer', description: 'Scans that ran the source and succeeded' }) successes: number;
  @ApiProperty({ type: 'integer', description: 'Scans that ended in the source’s error' }) failures: number;
  @ApiProperty({ type: 'integer', description: 'Names the source reported' }) names: number;
  @ApiProperty({ type: 'integer', description: 'Of them, hosts found for the first time' }) new: number;
}

export class SourceHealthDto {
  @ApiProperty({ enum: SCAN_SOURCE_NAMES }) source: string;
  @ApiProperty({ description: 'Whether SCAN_SOURCES runs it now' }) configured: boolean;
  @ApiProperty({ type: 'integer', description: 'Scans that ran the source and succeeded' }) successes: number;
  @ApiProperty({ type: 'integer', description: 'Scans that ended in the source’s error' }) failures: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'The message of its last failure' })
  last_failure: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_failure_at: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Median milliseconds its slices took a scan (of every root: read from buckets, to within 5 %)',
  })
  ms_median: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: '95th percentile of the same' }) ms_p95: number | null;
  @ApiProperty({ type: 'integer', description: 'Names it reported' }) names: number;
  @ApiProperty({ type: 'integer', description: 'Of them, names the scans saw (resolved, with RESOLVE=on)' })
  seen: number;
  @ApiProperty({ type: 'integer', description: 'Of them, hosts found for the first time' }) new: number;
  @ApiProperty({
    description:
      'It floods: at least 100 names in the window, and fewer than half of them seen (resolved). Only RESOLVE=on ' +
      'tells; with RESOLVE=off every name reported counts as seen.',
  })
  flooding: boolean;
  @ApiProperty({ type: SourceDayDto, isArray: true, description: 'By day (UTC), the days it ran or failed only' })
  days: SourceDayDto[];
}

export class SourceHealthMetaDto {
  @ApiProperty({ type: 'integer' }) days: number;
  @ApiProperty({ type: 'string', nullable: true, example: null }) domain: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: 'Scans that ended from then on count: the start of the UTC day days - 1 days before today',
  })
  since: string;
}
