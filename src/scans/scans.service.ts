import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { DomainsRepository } from '../domains/domains.repository.js';

@Injectable()
export class ScansService {
  constructor(private readonly domains: DomainsRepository) {}

  /** Queues a scan for the worker's next tick; queueing twice keeps one place in the queue. */
  async queue(name: string): Promise<{ domain: string; status: 'queued' }> {
    const domain = await this.domains.findByName(name);
    if (!domain) throw ApiError.notFound(`Domain ${name} is not tracked`);
    await this.domains.markQueued(domain.id);
    return { domain: domain.domain, status: 'queued' };
  }

  async rescanAll(): Promise<{ queued_domains: number }> {
    return { queued_domains: await this.domains.markAllEnabledDue() };
  }
}
