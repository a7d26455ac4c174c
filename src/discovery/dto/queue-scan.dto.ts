import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { IsRootDomain } from '../../common/validation/is-root-domain.decorator.js';

export class QueueScanDto {
  // class-validator runs the bottom decorator first: presence, then type (invalid_body), then the domain rule (invalid_domain).
  @ApiProperty({ description: 'A tracked root domain: bare and lowercase', example: 'example.com' })
  @IsRootDomain()
  @IsString({ message: 'domain must be a string' })
  @IsDefined({ message: 'domain is required' })
  domain: string;
}
