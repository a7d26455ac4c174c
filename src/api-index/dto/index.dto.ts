import { ApiProperty } from '@nestjs/swagger';

export class IndexDto {
  @ApiProperty({ example: '1' }) version: string;

  @ApiProperty({ type: [String], description: 'Every endpoint as "METHOD /path"', example: ['GET /domains'] })
  endpoints: string[];
}
