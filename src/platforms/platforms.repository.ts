import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { PlatformEntity } from './platform.entity.js';

@Injectable()
export class PlatformsRepository {
  constructor(@InjectRepository(PlatformEntity) private readonly platforms: Repository<PlatformEntity>) {}

  findBySlug(slug: string): Promise<PlatformEntity | null> {
    return this.platforms.findOneBy({ slug });
  }

  listSlugs(): Promise<string[]> {
    return this.platforms.find({ order: { slug: 'ASC' } }).then((all) => all.map((p) => p.slug));
  }
}
