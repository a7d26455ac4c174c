import { ApiProperty } from '@nestjs/swagger';
import { PLATFORM_SLUGS } from '../platform-slugs.js';

export class PlatformDto {
  @ApiProperty({ enum: PLATFORM_SLUGS }) slug: string;
  @ApiProperty({ example: 'HackerOne' }) name: string;
  @ApiProperty({ type: 'integer', description: 'Root domains tracked for the platform' }) domain_count: number;
  @ApiProperty({ type: 'integer', description: 'Hosts ever found under those domains' }) subdomain_count: number;
  @ApiProperty({ type: 'integer', description: 'Hosts first seen in the last 24 hours' }) new_24h: number;
}

export class PlatformDomainDto {
  @ApiProperty({ example: 'example.com' }) domain: string;
  @ApiProperty({ type: 'string', nullable: true }) program: string | null;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ type: 'integer' }) total_subdomains: number;
}
