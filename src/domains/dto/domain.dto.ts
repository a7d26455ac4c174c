import { ApiProperty } from '@nestjs/swagger';
import { PLATFORM_SLUGS } from '../../platforms/platform-slugs.js';

export const SCAN_OUTCOMES = ['running', 'success', 'error'] as const;

export class DomainDto {
  @ApiProperty({ description: 'Bare lowercase root domain', example: 'example.com' })
  domain: string;

  @ApiProperty({ enum: PLATFORM_SLUGS, description: 'Slug of the platform the program belongs to' })
  platform: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'Name of the bug-bounty program' })
  program: string | null;

  @ApiProperty({ description: 'Whether the worker scans this domain' })
  enabled: boolean;

  @ApiProperty({ type: 'integer', description: 'Hosts ever found under this domain (live counter)' })
  total_subdomains: number;

  @ApiProperty({ type: 'integer', description: 'Hosts the last finished scan found for the first time' })
  new_subdomains_last_scan: number;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When the last scan finished' })
  last_scanned_at: string | null;

  @ApiProperty({ enum: SCAN_OUTCOMES, nullable: true, description: 'Status of the last scan' })
  last_scan_status: string | null;
}

export class DomainStatsDto {
  @ApiProperty({ type: 'integer', description: 'Hosts ever found' })
  total: number;

  @ApiProperty({ type: 'integer', description: 'Hosts first seen in the last 24 hours' })
  new_24h: number;

  @ApiProperty({ type: 'integer', description: 'Hosts first seen in the last 7 days' })
  new_7d: number;

  @ApiProperty({ type: 'integer', description: 'Hosts seen by the last complete scan' })
  active: number;

  @ApiProperty({ type: 'integer', description: 'Hosts no longer seen' })
  inactive: number;
}

export class DomainDetailDto extends DomainDto {
  @ApiProperty({ type: DomainStatsDto })
  stats: DomainStatsDto;
}
