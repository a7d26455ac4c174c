import { FIELD_TEXT, type HostField } from '../hosts/model/host-fields.js';

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
export function csvTextCell(value: string, first = value): string {
  return `CASE WHEN ascii(${first}) IN (${FORMULA_STARTS}) THEN '"''' ELSE '"' END || replace(${value}, '"', '""') || '"'`;
}

/** One read of the host's host_intel row, as FIELD_TEXT reads it (one primary-key read per exported host). */
const intel = (expression: string) => `(SELECT ${expression} FROM host_intel k WHERE k.host_id = h.id)`;

/**
 * Each extra field as a CSV cell over hosts h: empty where nothing is known. A probed title and a CNAME chain are
 * whatever a page or a DNS server under a monitored root said (a CNAME target may hold a comma or a quote: DNS
 * names are bytes), so both are quoted and neutralised; the addresses and the status are numbers the service
 * parsed, written as FIELD_TEXT writes them. The default columns need nothing: hosts, root domains and slugs are
 * validated names whose first character is a letter, a digit or `_`, and the rest are timestamps and booleans.
 */
export const CSV_FIELD_CELLS: Record<HostField, string> = {
  ips: FIELD_TEXT.ips.csv,
  cname: `coalesce(${intel(csvTextCell("array_to_string(k.cname, ' ')", 'k.cname[1]'))}, '')`,
  status: FIELD_TEXT.status.csv,
  title: `coalesce(${intel(csvTextCell('k.title'))}, '')`,
};
