import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, Params, rows, type Statement } from '../database/sql.js';
import {
  type ScopeMode,
  type WildcardMode,
  hiddenConditions,
  outOfScopeConditions,
} from '../hosts/model/knowledge-filter.js';
import type { DnsAnswerDto, HttpChangeDto, TakeoverDto, WildcardZoneDto } from '../hosts/model/knowledge.dto.js';
import type { EventPosition, EventType } from './dto/events.query.js';
import { GenerateSql } from '../database/generate-sql.js';

export interface EventFilter {
  types: readonly EventType[];
  platform?: string;
  domainId?: number;
  /** Wildcard hosts' arrivals: out unless asked for (see WildcardMode). */
  wildcard?: WildcardMode;
  /** Out-of-scope hosts' changes but scope_changed itself: out unless asked for (see ScopeMode). */
  scope?: ScopeMode;
}

export interface EventRow {
  at: string;
  rank: 0 | 1;
  id: string;
  type: EventType;
  host: string;
  domain: string;
  platform: string;
  before: DnsAnswerDto | HttpChangeDto | null;
  after: DnsAnswerDto | HttpChangeDto | TakeoverDto | WildcardZoneDto | null;
}

/**
 * The change feed after a position and before the horizon, oldest first: a host's arrival is its hosts row
 * (host_new, on hosts_new_feed_idx, or hosts_domain_feed_idx for a domain walked backwards), every other change
 * a host_events row (host_events_feed_idx, or host_events_domain_idx). Each branch reads at most `limit` rows in
 * its own index order, and the two are merged on (at, rank, id): arrivals before other changes of one instant.
 */
export function eventsStatement(
  after: EventPosition | null,
  before: string,
  filter: EventFilter,
  limit: number,
): Statement {
  const q = new Params();
  const branches: string[] = [];
  const scope = (domainColumn: string) => [
    ...(filter.domainId !== undefined ? [`${domainColumn} = ${q.p(filter.domainId)}`] : []),
    ...(filter.platform ? [`d.platform_slug = ${q.p(filter.platform)}`] : []),
  ];
  if (filter.types.includes('host_new')) {
    const where = [
      `h.first_seen_at < ${q.p(before)}::timestamptz`,
      ...scope('h.domain_id'),
      ...hiddenConditions(filter.wildcard ?? 'exclude', filter.scope ?? 'in'),
    ];
    if (after) {
      where.push(
        after.rank === 0
          ? `(h.first_seen_at, h.id) > (${q.p(after.ts)}::timestamptz, ${q.p(after.id)}::bigint)`
          : `h.first_seen_at > ${q.p(after.ts)}::timestamptz`,
      );
    }
    branches.push(`(SELECT h.first_seen_at AS at, 0 AS rank, h.id, 'host_new' AS type, h.id AS host_id,
                           NULL::jsonb AS before, NULL::jsonb AS after
                      FROM hosts h JOIN domains d ON d.id = h.domain_id
                     WHERE ${where.join(' AND ')}
                     ORDER BY h.first_seen_at, h.id LIMIT ${q.p(limit)})`);
  }
  const others = filter.types.filter((t) => t !== 'host_new');
  if (others.length > 0) {
    const where = [
      `e.at < ${q.p(before)}::timestamptz`,
      `e.type = ANY(${q.p(others)}::text[])`,
      ...scope('e.domain_id'),
      // A host's move out of scope is told whatever the filter; its other changes follow the filter.
      ...outOfScopeConditions(filter.scope ?? 'in', 'e.host_id').map((c) => `(e.type = 'scope_changed' OR ${c})`),
    ];
    if (after) {
      where.push(
        after.rank === 0
          ? `e.at >= ${q.p(after.ts)}::timestamptz`
          : `(e.at, e.id) > (${q.p(after.ts)}::timestamptz, ${q.p(after.id)}::bigint)`,
      );
    }
    branches.push(`(SELECT e.at, 1 AS rank, e.id, e.type, e.host_id, e.before, e.after
                      FROM host_events e JOIN domains d ON d.id = e.domain_id
                     WHERE ${where.join(' AND ')}
                     ORDER BY e.at, e.id LIMIT ${q.p(limit)})`);
  }
  return {
    sql: `SELECT ${isoSql('x.at')} AS at, x.rank, x.id::text AS id, x.type, h.host, d.domain,
                 d.platform_slug AS platform, x.before, x.after
            FROM (${branches.join(' UNION ALL ')}) x
            JOIN hosts h ON h.id = x.host_id JOIN domains d ON d.id = h.domain_id
           ORDER BY x.at, x.rank, x.id
           LIMIT ${q.p(limit)}`,
    params: q.values,
  };
}

/** An EventRow of a host_events row `e`, its host `h` and its domain `d`. */
export const EVENT_COLUMNS = `${isoSql('e.at')} AS at, 1 AS rank, e.id::text AS id, e.type, h.host, d.domain,
                              d.platform_slug AS platform, e.before, e.after`;

/** A host's own changes, newest first (host_events_host_idx). */
const HISTORY_SQL = `SELECT ${EVENT_COLUMNS}
                       FROM host_events e JOIN hosts h ON h.id = e.host_id JOIN domains d ON d.id = h.domain_id
                      WHERE e.host_id = $1
                      ORDER BY e.at DESC, e.id DESC LIMIT $2`;

/** The change feed's reads: on the primary, as the stream's, since the horizon is the primary's open transactions. */
@Injectable()
export class EventsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql(
    {
      name: 'every type, from the start',
      params: [
        null,
        '2026-01-01T00:00:00.000000Z',
        { types: ['host_new', 'dns_changed', 'http_changed', 'takeover_candidate'] },
        100,
      ],
    },
    {
      name: 'one domain, after a position',
      params: [
        { ts: '2026-01-01T00:00:00.000000Z', rank: 1, id: '1' },
        '2026-01-01T00:00:00.000000Z',
        { types: ['host_gone'], domainId: 1, wildcard: 'include', scope: 'all' },
        100,
      ],
    },
  )
  after(position: EventPosition | null, before: string, filter: EventFilter, limit: number): Promise<EventRow[]> {
    const { sql, params } = eventsStatement(position, before, filter, limit);
    return rows<EventRow>(this.db, sql, params);
  }

  @GenerateSql({ params: ['1', 100] })
  history(hostId: string, limit: number): Promise<EventRow[]> {
    return rows<EventRow>(this.db, HISTORY_SQL, [hostId, limit]);
  }
}
