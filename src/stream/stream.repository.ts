import { type HostSource, sourcesSql } from '../hosts/model/host-sources.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, Params, rows, type Statement } from '../database/sql.js';
import { type ScopeMode, type WildcardMode, hiddenConditions } from '../hosts/model/knowledge-filter.js';
import { type HostField, knowledgeColumn, withFields } from '../hosts/model/host-fields.js';
import { GenerateSql } from '../database/generate-sql.js';

/** A position in the stream: after the host (first_seen_at, id), the keyset of /subdomains/new. */
export interface StreamPosition {
  ts: string;
  id: string;
}

export interface StreamFilter {
  platform?: string;
  domainId?: number;
  /** Wildcard hosts: out unless asked for (see WildcardMode). */
  wildcard?: WildcardMode;
  /** Out-of-scope hosts: out by default (see ScopeMode). */
  scope?: ScopeMode;
  /** What is known of each host, as extra keys of its event (fields=): what is known when it is sent. */
  fields?: readonly HostField[];
}

export interface StreamHost {
  id: string;
  host: string;
  domain: string;
  platform: string;
  first_seen_at: string;
  sources: HostSource[];
  /** The fields asked for, by name. */
  [field: string]: unknown;
}

/** Hosts after a position and before the horizon, oldest first (hosts_new_feed_idx; hosts_domain_feed_idx for a domain). */
export function streamStatement(after: StreamPosition, before: string, filter: StreamFilter, limit: number): Statement {
  const q = new Params();
  const where = [
    `(h.first_seen_at, h.id) > (${q.p(after.ts)}::timestamptz, ${q.p(after.id)}::bigint)`,
    `h.first_seen_at < ${q.p(before)}::timestamptz`,
  ];
  if (filter.domainId !== undefined) where.push(`h.domain_id = ${q.p(filter.domainId)}`);
  if (filter.platform) where.push(`d.platform_slug = ${q.p(filter.platform)}`);
  const scope = filter.scope ?? 'in';
  where.push(...hiddenConditions(filter.wildcard ?? 'exclude', scope));
  const row = { fields: filter.fields, scope, inScope: false };
  const sql = `SELECT h.id::text AS id, h.host, d.domain, d.platform_slug AS platform,
                      ${isoSql('h.first_seen_at')} AS first_seen_at, ${sourcesSql()}${knowledgeColumn(row)}
                 FROM hosts h JOIN domains d ON d.id = h.domain_id
                WHERE ${where.join(' AND ')}
                ORDER BY h.first_seen_at, h.id
                LIMIT ${q.p(limit)}`;
  return {
    sql: withFields(sql, ['id', 'host', 'domain', 'platform', 'first_seen_at', 'sources'], row),
    params: q.values,
  };
}

/**
 * The live stream's reads. They go to the primary, never a replica: the horizon is the primary's open
 * transactions, and a replica's lag would hold events back.
 */
@Injectable()
export class StreamRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql(
    {
      name: 'every host',
      params: [{ ts: '2026-01-01T00:00:00.000000Z', id: '0' }, '2026-01-01T00:00:00.000000Z', {}, 500],
    },
    {
      name: 'one platform, wildcards too',
      params: [
        { ts: '2026-01-01T00:00:00.000000Z', id: '0' },
        '2026-01-01T00:00:00.000000Z',
        { platform: 'hackerone', wildcard: 'include' },
        500,
      ],
    },
    {
      name: 'with addresses and title',
      params: [
        { ts: '2026-01-01T00:00:00.000000Z', id: '0' },
        '2026-01-01T00:00:00.000000Z',
        { fields: ['ips', 'title'] },
        500,
      ],
    },
  )
  after(position: StreamPosition, before: string, filter: StreamFilter, limit: number): Promise<StreamHost[]> {
    const { sql, params } = streamStatement(position, before, filter, limit);
    return rows<StreamHost>(this.db, sql, params);
  }
}
