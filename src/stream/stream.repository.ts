import { type HostSource, sourcesSql } from '../hosts/host-sources.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, Params, rows, type Statement } from '../database/sql.js';
import { type ScopeMode, type WildcardMode, hiddenConditions } from '../intel/knowledge-filter.js';

/** How long a transaction may run before it writes and still count as a possible writer of hosts. */
const WRITER_GRACE_SECONDS = 10;

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
}

export interface StreamHost {
  id: string;
  host: string;
  domain: string;
  platform: string;
  first_seen_at: string;
  sources: HostSource[];
}

/**
 * The moment before which every host is committed. Scans write first_seen_at = now(), their transaction's
 * start, so a host not yet committed belongs to a transaction still open that started no later than its
 * first_seen_at: the oldest such start (or now, when none is open) is the horizon. Events stop short of it, so
 * a slow commit never lands behind a position a client already has.
 *
 * Transactions that can write hosts: those holding a transaction id (every write takes one; scan persistence
 * takes it with its first statement, see ScanStoreRepository.writing), and young ones that may be about to.
 * Long read-only ones (an export) do not hold events back. Other roles' sessions show no xact_start unless the
 * service's role may read all statistics (pg_read_all_stats): run every process under one role.
 *
 * It is read in a statement of its own, before the hosts: a statement's snapshot is taken before it reads
 * pg_stat_activity, so a writer that committed in between would be neither visible nor counted as open.
 */
const HORIZON_SQL = `SELECT ${isoSql('h')} AS ts, extract(epoch FROM now() - h)::float8 AS lag_seconds,
        ${isoSql('now()')} AS now
   FROM (SELECT least(now(), min(xact_start)) AS h FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND (backend_xid IS NOT NULL OR xact_start > now() - interval '${WRITER_GRACE_SECONDS} seconds')) x`;

export interface Horizon {
  ts: string;
  /** How far behind now the horizon is: an open transaction holding events back. */
  lag_seconds: number;
  /** The database's now() when the horizon was read: every transaction committed by then started before it. */
  now: string;
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
  where.push(...hiddenConditions(filter.wildcard ?? 'exclude', filter.scope ?? 'in'));
  return {
    sql: `SELECT h.id::text AS id, h.host, d.domain, d.platform_slug AS platform,
                 ${isoSql('h.first_seen_at')} AS first_seen_at, ${sourcesSql()}
            FROM hosts h JOIN domains d ON d.id = h.domain_id
           WHERE ${where.join(' AND ')}
           ORDER BY h.first_seen_at, h.id
           LIMIT ${q.p(limit)}`,
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

  async horizon(): Promise<Horizon> {
    const [row] = await rows<Horizon>(this.db, HORIZON_SQL);
    return row;
  }

  after(position: StreamPosition, before: string, filter: StreamFilter, limit: number): Promise<StreamHost[]> {
    const { sql, params } = streamStatement(position, before, filter, limit);
    return rows<StreamHost>(this.db, sql, params);
  }
}
