/**
 * What a host list carries beyond its default row, on request (`fields=`): one vocabulary for every host list, the
 * export, the live stream and webhooks. Default rows are lean (a host's name, its root, when it was first seen,
 * whether it is still seen, its sources, in_scope): a poller that wants new names pays for no read of what is known
 * of them. Each field is read from the host's host_intel row, only when asked for.
 */
import { isoSql, type Statement } from '../../database/sql.js';
import type { ScopeMode } from './knowledge-filter.js';

/**
 * The fields, in the order the docs list them: the objects a host row showed before rows were lean (dns, http,
 * takeover, wildcard), then the flat values of the same knowledge (ips, cname, status, title).
 */
export const HOST_FIELDS = ['dns', 'http', 'takeover', 'wildcard', 'ips', 'cname', 'status', 'title'] as const;
export type HostField = (typeof HOST_FIELDS)[number];

/** The fields that are one flat value each: the columns of tabular rows (txt, csv). */
export const FLAT_FIELDS = ['ips', 'cname', 'status', 'title'] as const;
export type FlatField = (typeof FLAT_FIELDS)[number];

export const isFlatField = (field: string): field is FlatField => (FLAT_FIELDS as readonly string[]).includes(field);

/** The objects of what is known: what GET /hosts/{host} and the dashboard show of every host. */
export const OBJECT_FIELDS = ['dns', 'http', 'takeover', 'wildcard'] as const satisfies readonly HostField[];

/** A column of a host's host_intel row, as SQL: `(p.k).a` over a row value, `k.a` inside a read of the table. */
type Intel = (column: string) => string;

/**
 * A host row's `http` (null when never probed) as json, from the host_intel columns `k` of the host named by
 * `host`. The final URL is the start URL (`https://host/`, `http://host:8080/`) when no redirect moved it: the
 * store keeps final_url only when it differs (recordProbes).
 */
function httpJson(k: Intel, host: string): string {
  const startUrl = `${k('scheme')} || '://' || ${host} ||
    CASE WHEN (${k('scheme')}, ${k('port')}) IN (('https', 443), ('http', 80)) THEN '' ELSE ':' || ${k('port')} END || '/'`;
  return `CASE WHEN ${k('listening')} IS NOT NULL THEN json_build_object(
      'listening', ${k('listening')}, 'scheme', ${k('scheme')}, 'port', ${k('port')}, 'status', ${k('http_status')},
      'final_url', coalesce(${k('final_url')}, ${startUrl}), 'title', ${k('title')}, 'server', ${k('server')},
      'content_length', ${k('content_length')},
      'tls', CASE WHEN ${k('tls_subject')} IS NULL THEN NULL ELSE json_build_object(
               'subject', ${k('tls_subject')}, 'issuer', ${k('tls_issuer')},
               'not_after', ${isoSql(k('tls_not_after'))}) END,
      'probed_at', ${isoSql(k('probed_at'))}) END`;
}

/**
 * Each field as a JSON value over the host_intel columns `k` (all NULL when the host has no row), built as json,
 * not jsonb: a page's JSON is text, and json is written as text once.
 * - dns: the last answer (null when never resolved); takeover: null unless the alias points at a listed service
 *   that the answer or the probed page shows unclaimed; wildcard: a brute-force echo of its zone's wildcard.
 * - ips (A, then AAAA) and cname: empty arrays where nothing is known; status and title: null.
 */
const FIELD_JSON: Record<HostField, (k: Intel, host: string) => string> = {
  dns: (k) => `CASE WHEN ${k('dns_status')} IS NOT NULL THEN json_build_object(
      'status', ${k('dns_status')}, 'a', to_json(coalesce(${k('a')}, '{}')), 'aaaa', to_json(coalesce(${k('aaaa')}, '{}')),
      'cname', to_json(coalesce(${k('cname')}, '{}')), 'resolved_at', ${isoSql(k('resolved_at'))}) END`,
  http: httpJson,
  takeover: (k) => `coalesce(${k('dns_takeover')}, ${k('http_takeover')}) - 'vulnerable'`,
  wildcard: (k) => `coalesce(${k('wildcard')}, false)`,
  ips: (k) => `coalesce(${k('a')}, '{}') || coalesce(${k('aaaa')}, '{}')`,
  cname: (k) => `coalesce(${k('cname')}, '{}')`,
  status: (k) => k('http_status'),
  title: (k) => k('title'),
};

/**
 * The host_intel row of host `hostId` as one value, `k`, for a statement that withFields wraps: one primary-key read
 * per row, whatever the number of fields. A scalar subquery on purpose: it leaves the list's own plan alone.
 * PostgreSQL evaluates it for every row the scan passes up, those an OFFSET skips included: a page with an offset
 * computes it above the paged rows (see domainHostsStatements). A LEFT JOIN instead let the planner join a large
 * domain's every host before its limit (p99 114 → 1,207 ms for /domains/{domain}/subdomains at 1M hosts).
 */
const knowledgeRow = (hostId: string) => `(SELECT hk FROM host_intel hk WHERE hk.host_id = ${hostId}) AS k`;

/**
 * What a list's rows carry beyond their default columns: the fields asked for, and `in_scope`, which the list's
 * scope filter tells without a read (scope=in: true, out: false) and which is read only when the list shows both.
 */
export interface RowFields {
  fields?: readonly HostField[];
  /** The list's scope filter; undefined shows both, as hiddenConditions reads it. */
  scope?: ScopeMode;
  /** false: rows without in_scope (the stream's and webhooks' hosts, which never had it). */
  inScope?: boolean;
}

const readsInScope = (r: RowFields) => r.inScope !== false && r.scope !== 'in' && r.scope !== 'out';
const readsRow = (r: RowFields) => (r.fields?.length ?? 0) > 0 || readsInScope(r);

/** The column a row statement over hosts `h` selects for withFields: `, k` when it reads the host_intel row. */
export const knowledgeColumn = (r: RowFields, hostId = 'h.id') => (readsRow(r) ? `, ${knowledgeRow(hostId)}` : '');

/**
 * The rows of `sql` (whose select list has `columns`, `host`, and knowledgeColumn's `k`), in its order, with
 * in_scope and the fields asked for, in the order asked. Without fields, on a list that shows one side of the
 * scope, no host_intel row is read. Each field is its value (json, text[], integer…: an object once pg has read
 * it), or with `asJsonText` its JSON text, `null` where nothing is known (see hostRows).
 */
export function withFields(sql: string, columns: readonly HostColumn[], r: RowFields, asJsonText = false): string {
  const k: Intel = (column) => `(p.k).${column}`;
  const inScope = r.scope === 'in' ? 'true' : r.scope === 'out' ? 'false' : `NOT coalesce(${k('out_of_scope')}, false)`;
  const selected = columns.map((c) => `p.${c}`);
  if (r.inScope !== false) selected.push(`${inScope} AS in_scope`);
  selected.push(
    ...(r.fields ?? []).map((f) => {
      const value = FIELD_JSON[f](k, 'p.host');
      return `${asJsonText ? `coalesce(${escaped(value)}, 'null')` : value} AS ${f}`;
    }),
  );
  return `SELECT ${selected.join(', ')} FROM (${sql}) p`;
}

/**
 * How each default column of a host row is written as JSON text, over a column `c`: ids (digits) and timestamps
 * (isoSql) as they are, in quotes; names through to_json, which escapes them; booleans and the sources (json) as
 * their text, which is their JSON. NULL stays NULL here; rowJson writes it as null.
 */
const quoted = (c: string) => `'"' || ${c} || '"'`;
const escaped = (c: string) => `to_json(${c})::text`;
const asText = (c: string) => `${c}::text`;
const COLUMN_JSON = {
  id: quoted,
  host: escaped,
  domain: escaped,
  platform: escaped,
  first_seen_at: quoted,
  last_seen_at: quoted,
  is_active: asText,
  sources: asText,
} satisfies Record<string, (c: string) => string>;
export type HostColumn = keyof typeof COLUMN_JSON;

/**
 * The JSON object of a row of withFields(sql, columns, r), as a text expression over that row `r`
 * (Statement.json): its keys in withFields's order, each value as row_to_json writes it, NULL as null (one NULL
 * member would make the whole text NULL, and string_agg would leave the row out of its page). The fields are
 * their JSON text already (to_json of whatever their type: json, jsonb, text[], integer, text, boolean). A 100-row page of a
 * domain's hosts (1M-host bench seed, prepared, median of 3,000) took PostgreSQL 411 µs with row_to_json, 357 so.
 */
function rowJson(columns: readonly HostColumn[], r: RowFields): string {
  const values: [string, string][] = columns.map((c) => [c, COLUMN_JSON[c](`r.${c}`)]);
  if (r.inScope !== false) values.push(['in_scope', asText('r.in_scope')]);
  // The fields are JSON text already (withFields, asJsonText).
  values.push(...(r.fields ?? []).map((f): [string, string] => [f, `r.${f}`]));
  const members = values.map(([key, value], i) => `'${i === 0 ? '{' : ','}"${key}":' || coalesce(${value}, 'null')`);
  return `${members.join(' || ')} || '}'`;
}

/**
 * A host list's rows (withFields, each field as its JSON text) and their JSON objects (rowJson), for a Statement
 * that jsonPage or nodePage renders: nodePage writes the fields' text into each row as it is (Statement.jsonText)
 * rather than have pg parse it into objects that JSON.stringify writes back. On a 2,000-row page with
 * dns,http,takeover those objects were most of what the service allocated, and a quarter of its time under load
 * went to collecting them (bench/results/ab-fields-json-text.json).
 */
export function hostRows(
  sql: string,
  columns: readonly HostColumn[],
  r: RowFields,
): Pick<Statement, 'sql' | 'json' | 'jsonText'> {
  return { sql: withFields(sql, columns, r, true), json: rowJson(columns, r), jsonText: r.fields ?? [] };
}

/**
 * A read of one thing known of host `h` (the export's rows, the bulk feed's text lines): a primary-key read of its
 * host_intel row per field, `fallback` where it has none.
 */
const intel = (expression: string, fallback?: string) => {
  const read = `(SELECT ${expression} FROM host_intel k WHERE k.host_id = h.id)`;
  return fallback ? `coalesce(${read}, ${fallback})` : read;
};
const ownColumn: Intel = (column) => `k.${column}`;
const FALLBACK: Partial<Record<HostField, string>> = { wildcard: 'false', ips: "'{}'", cname: "'{}'" };

/**
 * The fields asked for as named columns of a row over hosts h (the json export's keys, rendered by row_to_json),
 * each after a comma, in the order asked.
 */
export function fieldColumns(fields: readonly HostField[]): string {
  return fields.map((f) => `, ${intel(FIELD_JSON[f](ownColumn, 'h.host'), FALLBACK[f])} AS ${f}`).join('');
}

/**
 * The first characters a spreadsheet takes for a formula (=, +, -, @) or lets one through after (TAB, CR), as
 * code points: ascii() reads the first one without a regex or a copy of the text.
 */
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r'].map((c) => c.charCodeAt(0)).join(', ');

/**
 * A CSV cell of outside text, as SQL over a text `value` (a column or a cheap expression: it is read twice):
 * quoted as RFC 4180 says, and with a single quote inside the quotes when it starts like a formula (OWASP's advice
 * on CSV injection), so a spreadsheet shows `=HYPERLINK(…)` as text. `first` is an expression that starts as
 * `value` does. NULL stays NULL.
 */
function csvTextCell(value: string, first = value): string {
  return `CASE WHEN ascii(${first}) IN (${FORMULA_STARTS}) THEN '"''' ELSE '"' END || replace(${value}, '"', '""') || '"'`;
}

/** Addresses and a status are the same text in txt and csv: numbers the service parsed, never quoted. */
const ADDRESSES_TEXT = `coalesce(${intel("array_to_string(coalesce(k.a, '{}') || coalesce(k.aaaa, '{}'), ' ')")}, '')`;
const STATUS_TEXT = `coalesce(${intel('k.http_status')}::text, '')`;

/**
 * Each flat field in txt and csv: empty text where nothing is known. In csv a probed title and a CNAME chain are
 * whatever a page or a DNS server under a monitored root said (a CNAME target may hold a comma or a quote: DNS
 * names are bytes), so both are quoted and neutralised; the addresses and the status are numbers the service
 * parsed. The default columns need nothing: hosts, root domains and slugs are validated names whose first
 * character is a letter, a digit or `_`, and the rest are timestamps and booleans.
 */
export const FIELD_TEXT: Record<FlatField, Record<'txt' | 'csv', string>> = {
  ips: { txt: ADDRESSES_TEXT, csv: ADDRESSES_TEXT },
  cname: {
    txt: `coalesce(${intel("array_to_string(k.cname, ' ')")}, '')`,
    csv: `coalesce(${intel(csvTextCell("array_to_string(k.cname, ' ')", 'k.cname[1]'))}, '')`,
  },
  status: { txt: STATUS_TEXT, csv: STATUS_TEXT },
  title: {
    txt: `coalesce(${intel("translate(k.title, E'\\t', ' ')")}, '')`,
    csv: `coalesce(${intel(csvTextCell('k.title'))}, '')`,
  },
};

/**
 * A field as txt or csv text: a flat one as FIELD_TEXT writes it; an object (dns, http, takeover) as its JSON text,
 * which holds no raw tab or line break, quoted in csv (it starts with `{`, never like a formula), and empty where
 * nothing is known; wildcard as `true` or `false`. So a tabular row can carry whatever a JSON row can.
 */
export function fieldText(field: HostField, format: 'txt' | 'csv'): string {
  if (isFlatField(field)) return FIELD_TEXT[field][format];
  if (field === 'wildcard') return intel(`${FIELD_JSON.wildcard(ownColumn, 'h.host')}::text`, "'false'");
  const json = `(${FIELD_JSON[field](ownColumn, 'h.host')})::text`;
  return `coalesce(${intel(format === 'csv' ? `'"' || replace(${json}, '"', '""') || '"'` : json)}, '')`;
}

/** A host's line of a txt list with the fields asked for: the host, then each field, tab-separated. */
export function textLine(fields: readonly HostField[]): string {
  const extra = fields.map((f) => fieldText(f, 'txt'));
  return extra.length ? `concat_ws(E'\\t', h.host, ${extra.join(', ')})` : 'h.host';
}
