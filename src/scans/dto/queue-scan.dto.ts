import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';

export class QueueScanDto {
  @ApiProperty({ description: 'A tracked root domain', example: 'example.com' })
  @IsDefined({ message: 'domain is required' })
  @IsString({ message: 'domain must be a string' })
  @IsRootDomain()
  domain: string;
}
