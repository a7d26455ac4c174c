import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error.js';
import { RenderedJson } from '../common/rendered-json.js';
import { Environment } from '../config/environment.js';
import { DomainsRepository } from '../domains/domains.repository.js';
import { DomainsService } from '../domains/domains.service.js';
import type { ListScansQuery } from './dto/list-scans.query.js';
import { ScansRepository } from './scans.repository.js';

@Injectable()
export class ScansService {
  constructor(
    private readonly domains: DomainsRepository,
    private readonly tracked: DomainsService,
    private readonly scans: ScansRepository,
    private readonly env: Environment,
  ) {}

  /** Queues a scan for the worker's next tick; queueing twice keeps one place in the queue. */
  async queue(name: string): Promise<{ domain: string; status: 'queued' }> {
    const domain = await this.tracked.requireTracked(name);
    await this.domains.markQueued(domain.id);
    return { domain: domain.domain, status: 'queued' };
  }

  async rescanAll(): Promise<{ queued_domains: number }> {
    return { queued_domains: await this.domains.markAllEnabledDue() };
  }

  async list(query: ListScansQuery) {
    const page = await this.scans.listPage(
      { domain: query.domain, platform: query.platform, status: query.status },
      query.limit,
      query.offset,
    );
    // No scan matched: a domain asked for may not be tracked at all (404), which the list's statement cannot tell.
    if (page.total === 0 && query.domain) await this.tracked.requireTracked(query.domain);
    return RenderedJson.envelope(page.json, { limit: query.limit, offset: query.offset, total: page.total });
  }

  async get(id: string): Promise<RenderedJson> {
    const scan = await this.scans.findById(id);
    if (!scan) throw AppError.notFound(`No scan with id ${id}`);
    return RenderedJson.data(scan);
  }

  async status(): Promise<RenderedJson> {
    return RenderedJson.data(await this.scans.workerStatus(this.env.SCAN_INTERVAL_HOURS));
  }
}
