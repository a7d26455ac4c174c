import { ApiProperty } from '@nestjs/swagger';
import { PlatformDto } from '../../platforms/dto/platform.dto.js';

export class StatsTotalsDto {
  @ApiProperty({ type: 'integer' }) domains: number;
  @ApiProperty({ type: 'integer' }) enabled_domains: number;
  @ApiProperty({ type: 'integer', description: 'Hosts ever found' }) subdomains: number;
  @ApiProperty({ type: 'integer' }) active_subdomains: number;
  @ApiProperty({ type: 'integer' }) inactive_subdomains: number;
}

export class NewCountsDto {
  @ApiProperty({ type: 'integer', description: 'Hosts first seen in the last hour' }) last_hour: number;
  @ApiProperty({ type: 'integer', description: 'in the last 24 hours' }) last_day: number;
  @ApiProperty({ type: 'integer', description: 'in the last 7 days' }) last_week: number;
  @ApiProperty({ type: 'integer', description: 'in the last 30 days' }) last_month: number;
  @ApiProperty({ type: 'integer', description: 'in the last 182 days' }) last_6_months: number;
}

export class StatsDto {
  @ApiProperty({ type: StatsTotalsDto }) totals: StatsTotalsDto;
  @ApiProperty({ type: NewCountsDto }) new: NewCountsDto;
  @ApiProperty({ type: [PlatformDto] }) platforms: PlatformDto[];
}

export class TopDomainDto {
  @ApiProperty({ example: 'example.com' }) domain: string;
  @ApiProperty({ type: 'integer', description: 'Hosts first seen in the window' }) new_count: number;
}

export class TimeseriesPointDto {
  @ApiProperty({ type: 'string', format: 'date-time', description: 'Start of the bucket (UTC)' }) ts: string;
  @ApiProperty({ type: 'integer' }) new_subdomains: number;
}

export class TopDomainsMetaDto {
  @ApiProperty({ type: 'string', format: 'date-time' }) since: string;
  @ApiProperty({ type: 'integer' }) limit: number;
}

export class TimeseriesMetaDto {
  @ApiProperty({ enum: ['hour', 'day', 'week', 'month'] }) bucket: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) since: string;
  @ApiProperty({ type: 'integer', description: 'Buckets returned' }) count: number;
}
