import { ApiProperty } from '@nestjs/swagger';

export class IndexDto {
  @ApiProperty({ example: '1' }) version: string;

  @ApiProperty({ type: [String], description: 'Every endpoint as "METHOD /path"', example: ['GET /domains'] })
  endpoints: string[];
}

export class KeyDto {
  @ApiProperty() name: string;
  @ApiProperty({ type: [String], enum: ['read', 'write'] }) scopes: string[];
}

export class MeDto {
  @ApiProperty() user_id: string;
  @ApiProperty({ type: KeyDto }) key: KeyDto;
}
