import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { RenderedJson } from '../common/rendered-json.js';
import { PlatformsRepository } from './platforms.repository.js';

@Injectable()
export class PlatformsService {
  constructor(private readonly platforms: PlatformsRepository) {}

  async list(): Promise<RenderedJson> {
    return RenderedJson.data(await this.platforms.withCounts());
  }

  async get(slug: string): Promise<RenderedJson> {
    const platform = await this.platforms.withCountsOf(slug);
    if (!platform) throw this.unknown(slug);
    return RenderedJson.data(platform);
  }

  async requirePlatform(slug: string): Promise<void> {
    if (!(await this.platforms.findBySlug(slug))) throw this.unknown(slug);
  }

  async domainsOf(slug: string, limit: number, offset: number) {
    const page = await this.platforms.domainsPage(slug, limit, offset);
    if (page.total === 0) await this.requirePlatform(slug); // an unknown platform, or one without domains
    return RenderedJson.envelope(page.json, { limit, offset, total: page.total });
  }

  private unknown(slug: string): AppError {
    return new AppError(
      'unknown_platform',
      `"${slug.slice(0, 64)}" is not a tracked platform; GET /platforms lists them`,
    );
  }
}
