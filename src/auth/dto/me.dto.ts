import { ApiProperty } from '@nestjs/swagger';

export class KeyDto {
  @ApiProperty() name: string;
  @ApiProperty({ type: [String], enum: ['read', 'write'] }) scopes: string[];
}

export class MeDto {
  @ApiProperty() user_id: string;
  @ApiProperty({ type: KeyDto }) key: KeyDto;
}
