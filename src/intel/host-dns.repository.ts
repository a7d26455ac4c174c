import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rows } from '../database/sql.js';
import { writing } from '../scans/scan-store.repository.js';
import { type HostAnswer, recordAnswers } from './host-dns.sql.js';
import { type HostProbe, recordProbes } from './host-http.sql.js';

@Injectable()
export class HostDnsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Of these names of a domain, the recorded hosts that have no DNS answer yet (hosts_domain_host_key). */
  async neverResolved(domainId: number, hosts: string[]): Promise<string[]> {
    const found = await rows<{ host: string }>(
      this.db,
      `SELECT h.host FROM hosts h
        WHERE h.domain_id = $1 AND h.host = ANY($2::text[])
          AND NOT EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = h.id AND k.dns_status IS NOT NULL)`,
      [domainId, hosts],
    );
    return found.map((r) => r.host);
  }

  /** Keeps answers in a transaction of their own (see recordAnswers); returns how many changes were raised. */
  async record(domainId: number, answers: HostAnswer[]): Promise<number> {
    if (answers.length === 0) return 0;
    return this.db.transaction(async (m) => {
      await writing(m);
      return recordAnswers(m, domainId, answers);
    });
  }

  /** The hosts given that no exclusion rule names: the only ones worth probing. */
  async inScope<T extends { host: string }>(domainId: number, hosts: T[]): Promise<T[]> {
    if (hosts.length === 0) return hosts;
    const out = await rows<{ host: string }>(
      this.db,
      `SELECT h.host FROM hosts h JOIN host_intel k ON k.host_id = h.id AND k.out_of_scope
        WHERE h.domain_id = $1 AND h.host = ANY ($2::text[])`,
      [domainId, hosts.map((h) => h.host)],
    );
    const excluded = new Set(out.map((r) => r.host));
    return excluded.size === 0 ? hosts : hosts.filter((h) => !excluded.has(h.host));
  }

  /** Keeps probes in a transaction of their own (see recordProbes); returns how many changes were raised. */
  async recordProbes(domainId: number, probes: HostProbe[]): Promise<number> {
    if (probes.length === 0) return 0;
    return this.db.transaction(async (m) => {
      await writing(m);
      return recordProbes(m, domainId, probes);
    });
  }
}
