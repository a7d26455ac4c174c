import { sourcesSql } from './model/host-sources.js';
import { type HostField, knowledgeColumn, OBJECT_FIELDS, withFields } from './model/host-fields.js';
import { type KnowledgeFilter } from './model/knowledge-filter.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import { type JsonPage, jsonPage, nodePage } from '../database/json-pages.js';
import { ReplicaReads } from '../database/db.js';
import { DomainHostDto, DomainNewHostDto, FeedHostDto, PlatformHostDto, SearchHostDto } from './dto/host.dto.js';
import type { HostDnsDto, HttpProbeDto, TakeoverDto } from './model/knowledge.dto.js';
import { ListCounts } from '../database/list-counts.js';
import { GenerateSql } from '../database/generate-sql.js';
import type { TrackedDomain } from '../domains/domains.repository.js';
import {
  countedByCounters,
  type DomainHostsOptions,
  domainHostsStatements,
  domainNewStatement,
  newFeedStatement,
  type NewFeedOptions,
  type PlatformPageOptions,
  platformPageStatement,
  searchStatement,
} from './host-lists.sql.js';

export interface HostDetailRow {
  id: string;
  host: string;
  domain: string;
  platform: string;
  first_seen_at: string;
  last_seen_at: string;
  is_active: boolean;
  sources: string[];
  dns: HostDnsDto | null;
  takeover: TakeoverDto | null;
  http: HttpProbeDto | null;
  wildcard: boolean;
  in_scope: boolean;
}

/** The tracked domain the generated queries (src/queries) are written for. */
const DOMAIN = { id: 1, domain: 'example.com', total: 3, active: 2, hasScopeRules: false };
/** The same with exclusion rules: its hosts are checked for their scope. */
const RULED = { ...DOMAIN, hasScopeRules: true };

/**
 * Every list of hosts the API serves, as row statements (exported for the benchmark's floor server, which
 * runs them and serialises the rows in Node) rendered into response JSON by PostgreSQL (jsonPage), but for a
 * domain's feed with fields, measured faster in Node (nodePage).
 */
@Injectable()
export class HostsRepository {
  /** Read endpoints' statements: on a replica when there are any. */
  private readonly db: ReplicaReads;

  constructor(
    @InjectDataSource() source: DataSource,
    private readonly counts: ListCounts,
  ) {
    this.db = new ReplicaReads(source);
  }

  /** One page of a domain's hosts, rendered, and the count of all that match (see countedByCounters). */
  @GenerateSql(
    {
      name: 'all, counted by the counters',
      dto: DomainHostDto,
      params: [{ domain: DOMAIN, filter: 'all', knowledge: { scope: 'in' }, limit: 100, offset: 0 }],
    },
    {
      name: 'with everything known, both sides of the scope',
      dto: DomainHostDto,
      params: [
        {
          domain: DOMAIN,
          filter: 'all',
          knowledge: { scope: 'all' },
          fields: ['dns', 'http', 'takeover', 'wildcard', 'ips', 'cname', 'status', 'title'],
          limit: 100,
          offset: 0,
        },
      ],
    },
    {
      name: 'inactive, counted by the counters',
      dto: DomainHostDto,
      params: [{ domain: DOMAIN, filter: 'inactive', limit: 100, offset: 0 }],
    },
    {
      name: 'a search',
      dto: DomainHostDto,
      params: [{ domain: DOMAIN, filter: 'all', search: 'api', limit: 100, offset: 0 }],
    },
    {
      name: 'new, by what is known',
      dto: DomainHostDto,
      params: [
        {
          domain: DOMAIN,
          filter: 'new',
          knowledge: { resolves: true, status: 200, scope: 'in' },
          limit: 100,
          offset: 0,
        },
      ],
    },
  )
  async listForDomain(opts: DomainHostsOptions): Promise<{ json: string | Buffer; total: number }> {
    const statements = domainHostsStatements(opts);
    const total = countedByCounters(opts);
    if (total === null) return this.counts.pageAndTotal(this.db, statements, opts.limit);
    return { json: (await jsonPage(this.db, statements.page, opts.limit)).json, total };
  }

  @GenerateSql(
    {
      dto: DomainNewHostDto,
      params: [RULED, '2026-01-01T00:00:00.000000Z', 100, { wildcard: 'exclude', scope: 'in' }],
    },
    {
      name: 'a root without exclusion rules',
      dto: DomainNewHostDto,
      params: [DOMAIN, '2026-01-01T00:00:00.000000Z', 100, { wildcard: 'exclude', scope: 'in' }],
    },
    {
      name: 'with addresses and title',
      dto: DomainNewHostDto,
      params: [RULED, '2026-01-01T00:00:00.000000Z', 100, { wildcard: 'exclude', scope: 'in' }, ['ips', 'title']],
    },
  )
  newForDomain(
    domain: Pick<TrackedDomain, 'id' | 'hasScopeRules'>,
    since: string,
    limit: number,
    knowledge: KnowledgeFilter,
    fields?: readonly HostField[],
  ): Promise<JsonPage<DomainNewHostDto>> {
    // Default rows are PostgreSQL's JSON: nodePage measured 0.92–0.96 × the req/s on them
    // (bench/results/ab-feeds-node-json.json). With dns,http,takeover, where this feed reads every row from the
    // table, jsonPage measured 1.04 × the req/s on 2,000 rows but p99 765 against 579 ms
    // (ab-domain-new-fields-json.json): nodePage keeps them.
    const render = fields?.length ? nodePage : jsonPage;
    return render(this.db, domainNewStatement(domain, since, limit, knowledge, fields), limit);
  }

  /** The new-host feed (see newFeedStatement): `limit` rows rendered, `found` tells whether more follow. */
  @GenerateSql(
    {
      name: 'first page',
      dto: FeedHostDto,
      params: [{ since: '2026-01-01T00:00:00.000000Z', limit: 500, knowledge: { scope: 'in' } }],
    },
    {
      name: 'first page with dns, http and takeover',
      dto: FeedHostDto,
      params: [
        {
          since: '2026-01-01T00:00:00.000000Z',
          limit: 500,
          knowledge: { scope: 'in' },
          fields: ['dns', 'http', 'takeover'],
        },
      ],
    },
    {
      name: 'next page of a platform',
      dto: FeedHostDto,
      params: [
        {
          since: '2026-01-01T00:00:00.000000Z',
          limit: 500,
          platform: 'hackerone',
          knowledge: { scope: 'in' },
          before: { ts: '2099-01-01T00:00:00.000000Z', id: '9' },
        },
      ],
    },
    {
      name: 'takeover candidates',
      params: [{ since: '2026-01-01T00:00:00.000000Z', limit: 500, knowledge: { takeover: true } }],
    },
  )
  newFeed(opts: NewFeedOptions): Promise<JsonPage<FeedHostDto>> {
    return jsonPage(this.db, newFeedStatement(opts), opts.limit);
  }

  @GenerateSql(
    { name: 'by name', dto: SearchHostDto, params: ['api', 100, 0, { scope: 'in' }] },
    {
      name: 'by name and what is known',
      params: ['api', 100, 0, { wildcard: 'only', scope: 'all' }],
    },
    {
      name: 'by name, both sides of the scope, with its DNS answer',
      dto: SearchHostDto,
      params: ['api', 100, 0, { scope: 'all' }, ['dns']],
    },
  )
  search(
    text: string,
    limit: number,
    offset: number,
    knowledge?: KnowledgeFilter,
    fields?: readonly HostField[],
  ): Promise<JsonPage<SearchHostDto>> {
    return jsonPage(this.db, searchStatement(text, limit, offset, knowledge, fields), limit);
  }

  /** One host by name with what is known of it; under the most specific root when two tracked roots hold it. */
  @GenerateSql({ params: ['api.example.com'] })
  async findOne(host: string): Promise<HostDetailRow | undefined> {
    const everything = { fields: OBJECT_FIELDS };
    const [row] = await rows<HostDetailRow>(
      this.db,
      withFields(
        `SELECT h.id::text AS id, h.host, d.domain, d.platform_slug AS platform,
                ${isoSql('h.first_seen_at')} AS first_seen_at, ${isoSql('h.last_seen_at')} AS last_seen_at, h.is_active,
                ${sourcesSql()}${knowledgeColumn(everything)}
           FROM hosts h JOIN domains d ON d.id = h.domain_id
          WHERE h.host = $1
          ORDER BY length(d.domain) DESC LIMIT 1`,
        ['id', 'host', 'domain', 'platform', 'first_seen_at', 'last_seen_at', 'is_active', 'sources'],
        everything,
      ),
      [host],
    );
    return row;
  }

  /** One page of the platform bulk feed (see platformPageStatement), rendered as JSON. */
  @GenerateSql(
    {
      name: 'first page',
      dto: PlatformHostDto,
      params: [{ platform: 'hackerone', limit: 1000, activeOnly: false, scope: 'in' }],
    },
    {
      name: 'next page of a program, with fields',
      dto: PlatformHostDto,
      params: [
        {
          platform: 'hackerone',
          limit: 1000,
          activeOnly: true,
          program: 'Example',
          scope: 'in',
          fields: ['ips', 'title', 'http'],
          after: { domain: 'example.com', host: 'api.example.com' },
        },
      ],
    },
  )
  platformPage(opts: PlatformPageOptions): Promise<JsonPage<PlatformHostDto>> {
    return jsonPage(this.db, platformPageStatement(opts), opts.limit);
  }

  /** The same page as rows, for the plain-text list: each with `line`, the host and the fields asked for. */
  @GenerateSql({ params: [{ platform: 'hackerone', limit: 1000, activeOnly: false, fields: ['cname', 'status'] }] })
  platformRows(opts: PlatformPageOptions): Promise<(PlatformHostDto & { line: string })[]> {
    const { sql, params } = platformPageStatement({ ...opts, textLines: true });
    return rows<PlatformHostDto & { line: string }>(this.db, sql, params);
  }
}
