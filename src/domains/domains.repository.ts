import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { affected, rows } from '../database/sql.js';
import { DomainEntity } from './domain.entity.js';

export interface NewDomain {
  domain: string;
  platformSlug: string;
  program: string | null;
  enabled: boolean;
}

@Injectable()
export class DomainsRepository {
  constructor(@InjectRepository(DomainEntity) private readonly domains: Repository<DomainEntity>) {}

  findByName(domain: string): Promise<DomainEntity | null> {
    return this.domains.findOneBy({ domain });
  }

  /** Inserts the domains that are not tracked yet, in one statement; returns the names it added. */
  async insertMissing(items: NewDomain[]): Promise<string[]> {
    if (items.length === 0) return [];
    const added = await rows<{ domain: string }>(
      this.domains.manager,
      `INSERT INTO domains (domain, platform_slug, program, enabled)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[])
       ON CONFLICT (domain) DO NOTHING
       RETURNING domain`,
      [
        items.map((i) => i.domain),
        items.map((i) => i.platformSlug),
        items.map((i) => i.program),
        items.map((i) => i.enabled),
      ],
    );
    return added.map((r) => r.domain);
  }

  async setEnabled(names: string[], enabled: boolean): Promise<string[]> {
    const changed = await rows<{ domain: string }>(
      this.domains.manager,
      `UPDATE domains SET enabled = $2, updated_at = now() WHERE domain = ANY($1::text[]) RETURNING domain`,
      [names, enabled],
    );
    return changed.map((r) => r.domain);
  }

  /** Removes domains with their hosts and scans (ON DELETE CASCADE). */
  async remove(names: string[]): Promise<string[]> {
    const removed = await this.domains.find({ where: { domain: In(names) }, select: { domain: true } });
    await this.domains.delete({ domain: In(names) });
    return removed.map((r) => r.domain);
  }

  list(): Promise<DomainEntity[]> {
    return this.domains.find({ order: { domain: 'ASC' } });
  }

  /** Asks the worker for a scan at its next tick; a domain already queued keeps its place. */
  async markQueued(id: number): Promise<void> {
    await affected(this.domains.manager, `UPDATE domains SET queued_at = COALESCE(queued_at, now()) WHERE id = $1`, [
      id,
    ]);
  }

  /** Makes every enabled domain due now (index domains_due_idx); returns how many. */
  markAllEnabledDue(): Promise<number> {
    return affected(this.domains.manager, `UPDATE domains SET next_scan_at = now() WHERE enabled`);
  }
}
