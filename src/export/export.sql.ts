import pg from 'pg';
import { containsPattern, isoSql } from '../database/sql.js';
import { fieldColumns, fieldText, type HostField, textLine } from '../hosts/model/host-fields.js';
import { hiddenConditions, ruledRoot, type ScopeMode } from '../hosts/model/knowledge-filter.js';
import { sourcesSql } from '../hosts/model/host-sources.js';
import type { ExportFormat, ExportScope } from './dto/export.query.js';

export interface ExportFilters {
  /** Extra columns (fields=), in the order asked. */
  fields: readonly HostField[];
  domainId?: number;
  platform?: string;
  scope: ExportScope;
  /** In scope, out of it, or both, by the exclusion rules. */
  hostScope: ScopeMode;
  since: string;
  search?: string;
}

/**
 * Where a batch ended: the next one starts right after this host of this root domain, then with the root domains
 * named after it. The name is kept, not looked up by id in the next batch: a root removed between two batches
 * would have no name then, and the export would end early.
 */
export interface Position {
  domainId: number;
  domain: string;
  host: string;
}

// PostgreSQL renders each line itself, and Node passes its bytes on. Hosts, domains and slugs are validated
// names (letters, digits, '-', '_', '.'), so no CSV field needs quoting but the outside text (see fieldText).
function line(format: ExportFormat, fields: readonly HostField[]): string {
  switch (format) {
    case 'json':
      return 'row_to_json(r)::text'; // the row of jsonObjectRow
    case 'txt':
      return textLine(fields);
    case 'csv':
      return `concat_ws(',', h.host, d.domain, d.platform_slug, ${isoSql('h.first_seen_at')}, h.is_active::text
                        ${fields.map((f) => `, ${fieldText(f, 'csv')}`).join('')})`;
  }
}

/**
 * The json export's object as a row `r` beside d and h (a LATERAL subquery with no FROM, which the planner folds
 * into the walk's own rows): row_to_json writes its keys in this order, with no spaces. Building the object with
 * json_build_object and joining the fields with jsonb's `||` cost 2.6 times as much of PostgreSQL's time (6.2 µs
 * a row against 2.4, psql's \timing over 200,000 rows of the 1M-host bench seed), and jsonb printed its keys
 * sorted by length.
 */
function jsonObjectRow(fields: readonly HostField[]): string {
  return `CROSS JOIN LATERAL (SELECT h.host, d.domain, d.platform_slug AS platform,
                                     ${isoSql('h.first_seen_at')} AS first_seen_at, h.is_active,
                                     ${sourcesSql()}${fieldColumns(fields)}) r`;
}

/** The host columns a line reads: a txt export of names alone reads hosts_domain_host_key and no row. */
function hostColumns(format: ExportFormat, fields: readonly HostField[]): string {
  const columns = ['host', ...(format === 'txt' ? [] : ['first_seen_at', 'is_active'])];
  if (format === 'json') columns.push('sources');
  if (fields.length) columns.push('id');
  return columns.map((c) => `h.${c}`).join(', ');
}

/**
 * A root without exclusion rules has no host out of scope (ruledRoot). So in scope (host_scope=in), only the hosts of
 * a root with rules (`ruled`, read once per root) are looked up, by (domain_id, host) rather than by id, which keeps
 * a txt export an index-only scan of hosts_domain_host_key; out of scope, only the roots with rules are walked.
 */
const RULED = ruledRoot();
const IN_SCOPE = `(NOT d.ruled OR NOT EXISTS (SELECT 1 FROM hosts o JOIN host_intel k ON k.host_id = o.id
                    WHERE o.domain_id = h.domain_id AND o.host = h.host AND k.out_of_scope))`;

/** COPY takes no bind parameters: values go in as literals, text quoted by pg itself, numbers checked. */
const text = (value: string) => pg.escapeLiteral(value);
function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`export: ${value} is not an integer`);
  return String(value);
}

/** The filters' conditions on the roots (d) and on their hosts (h). */
function conditions(filters: ExportFilters): { roots: string[]; hosts: string[] } {
  const roots: string[] = filters.hostScope === 'out' ? [RULED] : [];
  if (filters.domainId !== undefined) roots.push(`d.id = ${int(filters.domainId)}`);
  if (filters.platform) roots.push(`d.platform_slug = ${text(filters.platform)}`);
  const hosts: string[] = [];
  if (filters.scope === 'new') hosts.push(`h.first_seen_at >= ${text(filters.since)}::timestamptz`);
  if (filters.scope === 'inactive') hosts.push('NOT h.is_active');
  hosts.push(...(filters.hostScope === 'in' ? [IN_SCOPE] : hiddenConditions(undefined, filters.hostScope)));
  if (filters.search) hosts.push(`h.host LIKE ${text(containsPattern(filters.search.toLowerCase()))} ESCAPE '\\'`);
  return { roots, hosts };
}

/**
 * One batch of an export: `limit` rows as (root domain id, line), in COPY's binary format (which escapes nothing:
 * see CopyLines), after `after` or from the start. The order is root domain, then host, and it is the walk's own:
 * the roots in order (domains_domain_key), and for each the hosts in order (hosts_domain_host_key), first the rest
 * of the root the batch before ended in. No ORDER BY sorts the whole: PostgreSQL does not know that a nested loop
 * keeps its inner side's order, and sorted every root's hosts again (half the time of a txt batch). The order
 * holds as the batch runs serially (see BATCH_SETTINGS), as the UNION ALL's parts run one after the other.
 */
export function batchStatement(
  format: ExportFormat,
  filters: ExportFilters,
  after: Position | undefined,
  limit: number,
): string {
  const { roots, hosts } = conditions(filters);
  const rows = int(limit);
  const ruled = filters.hostScope === 'in' ? `, ${RULED} AS ruled` : '';
  const walk = (rootsFrom: string, hostsFrom: string[]) => {
    const rootWhere = [rootsFrom, ...roots].filter(Boolean);
    const hostWhere = ['h.domain_id = d.id', ...hostsFrom, ...hosts];
    return `SELECT d.id, ${line(format, filters.fields)}
              FROM (SELECT d.id, d.domain, d.platform_slug${ruled} FROM domains d
                     ${rootWhere.length ? `WHERE ${rootWhere.join(' AND ')}` : ''} ORDER BY d.domain) d
             CROSS JOIN LATERAL (SELECT ${hostColumns(format, filters.fields)} FROM hosts h
                                  WHERE ${hostWhere.join(' AND ')} ORDER BY h.host LIMIT ${rows}) h
             ${format === 'json' ? jsonObjectRow(filters.fields) : ''}
             LIMIT ${rows}`;
  };
  let query: string;
  if (!after) {
    query = walk('', []);
  } else {
    const domainId = int(after.domainId);
    query = `(${walk(`d.id = ${domainId}`, [`h.host > ${text(after.host)}`])})
             UNION ALL (${walk(`d.domain > ${text(after.domain)}`, [])}) LIMIT ${rows}`;
  }
  return `/* export */ COPY (${query}) TO STDOUT (FORMAT binary)`;
}

/**
 * A batch's settings, local to its transaction: no parallel plan (the walk's order is the serial executor's), no
 * sort where an index gives the order, and no JIT (a batch's estimate can pass jit_above_cost, and compiling took
 * longer than the batch).
 */
export const BATCH_SETTINGS =
  'SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL enable_sort = off; SET LOCAL jit = off';
