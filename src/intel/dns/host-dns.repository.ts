import { withTakeover } from '../takeover/takeover.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { rows } from '../../database/sql.js';
import { type HostAnswer } from '../../hosts/store/host-dns.sql.js';
import { type HostProbe } from '../../hosts/store/host-http.sql.js';
import { GenerateSql } from '../../database/generate-sql.js';
import { HostStore } from '../../hosts/store/host-store.js';

@Injectable()
export class HostDnsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly hosts: HostStore,
  ) {}

  /** Of these names of a domain, the recorded hosts that have no DNS answer yet (hosts_domain_host_key). */
  @GenerateSql({ params: [1, ['api.example.com']] })
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
  @GenerateSql({
    params: [1, [{ host: 'www.example.com', status: 'nxdomain', a: [], aaaa: [], cname: ['gone.herokuapp.com'] }]],
  })
  async record(domainId: number, answers: HostAnswer[]): Promise<number> {
    if (answers.length === 0) return 0;
    return this.hosts.transaction((w) => w.answers(domainId, withTakeover(answers)));
  }

  /** The hosts given that no exclusion rule names: the only ones worth probing. */
  @GenerateSql({ params: [1, [{ host: 'api.example.com' }]] })
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
  @GenerateSql({
    params: [
      1,
      [
        {
          host: 'www.example.com',
          listening: true,
          scheme: 'http',
          port: 80,
          status: 404,
          final_url: null,
          title: 'Not Found',
          server: null,
          content_length: null,
          tls_subject: null,
          tls_issuer: null,
          tls_not_after: null,
          takeover: null,
        },
      ],
    ],
  })
  async recordProbes(domainId: number, probes: HostProbe[]): Promise<number> {
    if (probes.length === 0) return 0;
    return this.hosts.transaction((w) => w.probes(domainId, probes));
  }
}
