import { hiddenConditions, type ScopeMode } from '../intel/knowledge-filter.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Params, ReplicaReads, containsPattern, isoSql, rowArrays } from '../database/sql.js';
import type { ExportField, ExportFormat, ExportScope } from './dto/export.query.js';

export interface ExportFilters {
  /** Extra columns (fields=), in the order asked. */
  fields: readonly ExportField[];
  domainId?: number;
  platform?: string;
  scope: ExportScope;
  /** In scope, out of it, or both, by the exclusion rules. */
  hostScope: ScopeMode;
  since: string;
  search?: string;
}

// PostgreSQL renders each line itself, so Node only joins strings. Hosts, domains and slugs are validated
// names (letters, digits, '-', '_', '.'), so no CSV field needs quoting but a title (see FIELD).
function line(format: ExportFormat, fields: readonly ExportField[]): string {
  const extra = fields.map((f) => FIELD[f][format]);
  switch (format) {
    case 'txt':
      return extra.length ? `concat_ws(E'\\t', h.host, ${extra.join(', ')})` : 'h.host';
    case 'csv':
      return `concat_ws(',', h.host, d.domain, d.platform_slug, ${isoSql('h.first_seen_at')}, h.is_active::text
                        ${extra.map((e) => `, ${e}`).join('')})`;
    case 'json':
      return `(json_build_object('host', h.host, 'domain', d.domain, 'platform', d.platform_slug,
                 'first_seen_at', ${isoSql('h.first_seen_at')}, 'is_active', h.is_active,
                 'sources', host_sources(h.sources))::jsonb ${extra.map((e) => `|| ${e}`).join(' ')})::text`;
  }
}

/** The host's host_intel row: one primary-key read per exported host, only when fields are asked for. */
const intel = (expression: string) => `(SELECT ${expression} FROM host_intel k WHERE k.host_id = h.id)`;
const ips = intel("coalesce(k.a, '{}') || coalesce(k.aaaa, '{}')");
const cname = intel('k.cname');
const status = intel('k.http_status');
const title = intel('k.title');
const csvQuoted = (text: string) => `'"' || replace(${text}, '"', '""') || '"'`;

/** Each extra field in each format: empty text (txt, csv) or null (json) where nothing is known. */
const FIELD: Record<ExportField, Record<ExportFormat, string>> = {
  ips: {
    txt: `coalesce(array_to_string(${ips}, ' '), '')`,
    csv: `coalesce(array_to_string(${ips}, ' '), '')`,
    json: `jsonb_build_object('ips', coalesce(to_jsonb(${ips}), '[]'))`,
  },
  cname: {
    txt: `coalesce(array_to_string(${cname}, ' '), '')`,
    csv: `coalesce(array_to_string(${cname}, ' '), '')`,
    json: `jsonb_build_object('cname', coalesce(to_jsonb(${cname}), '[]'))`,
  },
  status: {
    txt: `coalesce(${status}::text, '')`,
    csv: `coalesce(${status}::text, '')`,
    json: `jsonb_build_object('status', ${status})`,
  },
  title: {
    txt: `coalesce(translate(${title}, E'\\t', ' '), '')`,
    csv: `coalesce(${csvQuoted(title)}, '')`,
    json: `jsonb_build_object('title', ${title})`,
  },
};

/** Rows per statement: each batch is one short statement, so an export never holds a connection between them. */
export const EXPORT_BATCH = 2000;

/** Where a batch ended: the next one starts right after this host of this root domain. */
interface Position {
  domainId: number;
  host: string;
}

type Row = [domainId: number, line: string];

/** The host a rendered line names (each format begins with it), for the position the next batch resumes from. */
const HOST_OF: Record<ExportFormat, (line: string) => string> = {
  txt: (line) => (line.includes('\t') ? line.slice(0, line.indexOf('\t')) : line),
  csv: (line) => line.slice(0, line.indexOf(',')),
  json: (line) => (JSON.parse(line) as { host: string }).host,
};

/**
 * Hosts to export, in batches of rendered lines, at the pace the client takes them. The order is root domain,
 * then host, and each batch is a keyset statement of its own that resumes after the last row of the one before:
 * first the rest of that root's hosts (hosts_domain_host_key, in host order), then the roots after it
 * (domains_domain_key). Between batches no connection is held and no transaction is open, so a client that reads
 * slowly, or not at all, costs the database nothing, and on the embedded database (one backend) every other request
 * goes on between two batches. A host recorded behind the position while the export runs is not in it, as with any
 * cursor walk. Rows come as [domain id, line] arrays: the least garbage per row.
 */
@Injectable()
export class ExportRepository {
  private readonly reads: ReplicaReads;

  constructor(@InjectDataSource() db: DataSource) {
    this.reads = new ReplicaReads(db);
  }

  async *lineBatches(format: ExportFormat, filters: ExportFilters): AsyncGenerator<string[]> {
    let after: Position | undefined;
    for (;;) {
      const batch = await rowArrays<Row>(this.reads, ...this.batch(format, filters, after));
      if (batch.length === 0) return;
      const lines = batch.map((r) => r[1]);
      yield lines;
      if (batch.length < EXPORT_BATCH) return;
      after = { domainId: batch[batch.length - 1][0], host: HOST_OF[format](lines[lines.length - 1]) };
    }
  }

  private batch(format: ExportFormat, filters: ExportFilters, after: Position | undefined): [string, unknown[]] {
    const q = new Params();
    const where = this.conditions(filters, q);
    const select = `SELECT d.id, ${line(format, filters.fields)} FROM domains d JOIN hosts h ON h.domain_id = d.id`;
    const limit = q.p(EXPORT_BATCH);
    if (!after) {
      return [
        `/* export */ ${select} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.domain, h.host LIMIT ${limit}`,
        q.values,
      ];
    }
    const domainId = q.p(after.domainId);
    const rest = [`h.domain_id = ${domainId}`, `h.host > ${q.p(after.host)}`, ...where];
    const later = [`d.domain > (SELECT domain FROM domains WHERE id = ${domainId})`, ...where];
    return [
      `/* export */ (${select} WHERE ${rest.join(' AND ')} ORDER BY h.host LIMIT ${limit})
       UNION ALL (${select} WHERE ${later.join(' AND ')} ORDER BY d.domain, h.host LIMIT ${limit}) LIMIT ${limit}`,
      q.values,
    ];
  }

  private conditions(filters: ExportFilters, q: Params): string[] {
    const where: string[] = [];
    if (filters.domainId !== undefined) where.push(`d.id = ${q.p(filters.domainId)}`);
    if (filters.platform) where.push(`d.platform_slug = ${q.p(filters.platform)}`);
    if (filters.scope === 'new') where.push(`h.first_seen_at >= ${q.p(filters.since)}::timestamptz`);
    if (filters.scope === 'inactive') where.push('NOT h.is_active');
    where.push(...hiddenConditions(undefined, filters.hostScope));
    if (filters.search) where.push(`h.host LIKE ${q.p(containsPattern(filters.search.toLowerCase()))} ESCAPE '\\'`);
    return where;
  }
}
