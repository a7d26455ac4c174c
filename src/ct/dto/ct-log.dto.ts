import { ApiProperty } from '@nestjs/swagger';

export class CtLogDto {
  @ApiProperty({
    example: 'https://ct.googleapis.com/logs/us1/argon2025h2',
    description: 'The log, as CT_LOGS names it',
  })
  url: string;

  @ApiProperty({ enum: ['rfc6962', 'static'], description: 'rfc6962: an RFC 6962 log; static: a static-ct-api log' })
  kind: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Entries in the log at its last tree head read' })
  tree_size: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Index of the next entry to read: every entry before it is recorded. Null until first read',
  })
  position: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Entries behind: tree_size − position' })
  lag: number | null;

  @ApiProperty({ type: 'integer', description: 'Entries read from the log' })
  entries_total: number;

  @ApiProperty({
    type: 'integer',
    description: 'Host names under tracked roots its entries gave, new or known (one per entry page and root)',
  })
  hosts_total: number;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When its tree head was last read' })
  last_polled_at: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The last failure reading the log' })
  last_error: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When last_error happened' })
  last_error_at: string | null;
}
