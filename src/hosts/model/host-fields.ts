/**
 * The knowledge a host list can carry on request (fields=), one vocabulary for the export, the platform bulk feed
 * and the txt feeds: each field as a JSON column and as txt/csv text, read from the host's host_intel row.
 */

/** Extra columns of what is known of each host, after the default ones. */
export const HOST_FIELDS = ['ips', 'cname', 'status', 'title'] as const;
export type HostField = (typeof HOST_FIELDS)[number];

/** The host's host_intel row: one primary-key read per exported host, only when fields are asked for. */
const intel = (expression: string) => `(SELECT ${expression} FROM host_intel k WHERE k.host_id = h.id)`;
const ips = intel("coalesce(k.a, '{}') || coalesce(k.aaaa, '{}')");
const cname = intel('k.cname');
const status = intel('k.http_status');
const title = intel('k.title');

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

/**
 * The extra fields as columns of a row statement over hosts h (the json export's keys, and the platform bulk feed's,
 * rendered by row_to_json): arrays (empty where nothing is known), a number or a text (null where nothing is known).
 */
const FIELD_COLUMNS: Record<HostField, string> = {
  ips: `coalesce(${ips}, '{}')`,
  cname: `coalesce(${cname}, '{}')`,
  status,
  title,
};

/** The fields asked for as named columns of a row over hosts h, each after a comma, in the order asked. */
export function fieldColumns(fields: readonly HostField[]): string {
  return fields.map((f) => `, ${FIELD_COLUMNS[f]} AS ${f}`).join('');
}

/**
 * Each extra field in txt and csv: empty text where nothing is known (json's are FIELD_COLUMNS, null there). In
 * csv a probed title and a CNAME chain are whatever a page or a DNS server under a monitored root said (a CNAME
 * target may hold a comma or a quote: DNS names are bytes), so both are quoted and neutralised; the addresses and
 * the status are numbers the service parsed. The default columns need nothing: hosts, root domains and slugs are
 * validated names whose first character is a letter, a digit or `_`, and the rest are timestamps and booleans.
 */
export const FIELD_TEXT: Record<HostField, Record<'txt' | 'csv', string>> = {
  ips: {
    txt: `coalesce(array_to_string(${ips}, ' '), '')`,
    csv: `coalesce(array_to_string(${ips}, ' '), '')`,
  },
  cname: {
    txt: `coalesce(array_to_string(${cname}, ' '), '')`,
    csv: `coalesce(${intel(csvTextCell("array_to_string(k.cname, ' ')", 'k.cname[1]'))}, '')`,
  },
  status: {
    txt: `coalesce(${status}::text, '')`,
    csv: `coalesce(${status}::text, '')`,
  },
  title: {
    txt: `coalesce(translate(${title}, E'\\t', ' '), '')`,
    csv: `coalesce(${intel(csvTextCell('k.title'))}, '')`,
  },
};

/** A host's line of a txt list with the extra fields asked for: the host, then each field, tab-separated. */
export function textLine(fields: readonly HostField[]): string {
  const extra = fields.map((f) => FIELD_TEXT[f].txt);
  return extra.length ? `concat_ws(E'\\t', h.host, ${extra.join(', ')})` : 'h.host';
}
