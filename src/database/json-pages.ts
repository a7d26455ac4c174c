import { type Queryable, rowsLike, type Statement } from './sql.js';

/** A row's JSON object where its Statement writes none of its own (Statement.json). */
const ROW_TO_JSON = 'row_to_json(r)::text';

/**
 * The one row a statement gives, rendered as a JSON object by PostgreSQL (see jsonPage); null when it gives none.
 */
export async function jsonRow(db: Queryable, statement: Statement): Promise<string | null> {
  const [row] = await rowsLike<{ json: string }>(
    db,
    `SELECT ${statement.json ?? ROW_TO_JSON} AS json FROM (${statement.sql}) r`,
    statement,
  );
  return row?.json ?? null;
}

/** Whether a statement's parameters are the first of another's, so that one statement can hold both texts. */
const paramsLead = (lead: Statement, of: Statement) => lead.params.every((value, i) => of.params[i] === value);

/**
 * A page rendered by PostgreSQL (jsonPage) and the count of all that match, in one statement (one round trip)
 * when the count's parameters are the first of the page's, as pageWithCount writes them; else side by side.
 */
export async function jsonPageAndTotal(
  db: Queryable,
  { page, count }: { page: Statement; count: Statement },
  take: number,
): Promise<{ json: string | Buffer; total: number }> {
  if (paramsLead(count, page)) {
    const [row] = await rowsLike<{ lines: string | null; total: number }>(
      db,
      `SELECT (${jsonLinesSql(page)}) AS lines, (${count.sql}) AS total`,
      { ...page, prepare: page.prepare && count.prepare },
    );
    return { json: pageOfLines<unknown>(row?.lines ?? null, take).json, total: row?.total ?? 0 };
  }
  const [found, [counted]] = await Promise.all([
    jsonPage(db, page, take),
    rowsLike<{ total: number }>(db, count.sql, count),
  ]);
  return { json: found.json, total: counted?.total ?? 0 };
}

export interface JsonPage<L> {
  /** The first `take` rows as a compact JSON array, written by PostgreSQL (jsonPage; in bytes when large) or in Node. */
  json: string | Buffer;
  /** How many rows the statement gave (a statement that asks for take + 1 tells whether more follow). */
  found: number;
  /** How many rows the array holds. */
  count: number;
  /** The last row in the array, decoded when read (for cursors); null when it is empty. */
  readonly last: L | null;
}

/**
 * Runs a row statement and lets PostgreSQL render its rows as the JSON array of a response body: Node receives
 * one string, each row's JSON on a line of its own (JSON text never holds a raw line break), and cuts it after
 * `take` rows, instead of decoding every row and serialising it again. The rows keep the statement's order (an
 * aggregate over an ordered subquery, as PostgreSQL documents for string_agg).
 */
export async function jsonPage<L>(db: Queryable, statement: Statement, take: number): Promise<JsonPage<L>> {
  const [row] = await rowsLike<{ lines: string | null }>(db, jsonLinesSql(statement), statement);
  return pageOfLines<L>(row?.lines ?? null, take);
}

/**
 * The same page as jsonPage's, its rows decoded by pg and written by JSON.stringify (the fields asked for written
 * as PostgreSQL's JSON text, Statement.jsonText): Node, single-threaded, then does the writing PostgreSQL's
 * backends would. It pays where PostgreSQL is the busier side: a domain's feed with fields, which reads each row
 * from the table (see HostsRepository.newForDomain). On the pages that read an index alone it lost, measured
 * against jsonPage on 1M hosts with knowledge (5 rounds, bench/results/ab-feeds-pg-json.json,
 * ab-walk-fields-pg-json.json, ab-walk-large-pg-json.json): jsonPage 1.12–1.27 × the req/s on the feeds' default
 * rows, 1.35–2.0 × on the platform walk's (p99 1,399 → 543 ms on 10,000 rows), 1.11–1.3 × with dns,http,takeover;
 * an earlier machine had measured the reverse on the same pages (ab-feeds-node-json.json,
 * ab-platform-walk-node-json.json). The rows' keys are the statement's columns, in its order; its values must be
 * what the response shows (text for ids and timestamps, as the statements that jsonPage renders give them).
 */
export async function nodePage<L>(db: Queryable, statement: Statement, take: number): Promise<JsonPage<L>> {
  const found = await rowsLike<L & Record<string, unknown>>(db, statement.sql, statement);
  const kept = found.length > take ? found.slice(0, take) : found;
  const json = statement.jsonText?.length ? rowsWithJsonText(kept, statement.jsonText) : JSON.stringify(kept);
  return { json, found: found.length, count: kept.length, last: kept.at(-1) ?? null };
}

/**
 * Rows as a JSON array, the columns `jsonText` (each row's last, holding JSON text) written as they are: each
 * row's other columns by JSON.stringify (which leaves out an undefined member), the texts after them. The rows
 * lose those columns' values (a page's last row is read for a cursor's keys only).
 */
function rowsWithJsonText(rows: Record<string, unknown>[], jsonText: readonly string[]): string {
  const keys = jsonText.map((column) => [column, `,${JSON.stringify(column)}:`] as const);
  const written = rows.map((row) => {
    let after = '';
    for (const [column, key] of keys) {
      after += key + (row[column] as string);
      row[column] = undefined;
    }
    const own = JSON.stringify(row);
    return own === '{}' ? `{${after.slice(1)}}` : `${own.slice(0, -1)}${after}}`;
  });
  return `[${written.join(',')}]`;
}

/** A row statement's rows as one text, each row's JSON (Statement.json) on a line of its own, in its order. */
const jsonLinesSql = ({ sql, json = ROW_TO_JSON }: Statement) =>
  `SELECT string_agg(${json}, E'\\n') AS lines FROM (${sql}) r`;

/** Pages of more characters than this are made bytes (see RenderedJson): 1,000 domains are some 220,000. */
const LARGE_PAGE = 100_000;
const [OPEN, COMMA, CLOSE, LINE_BREAK] = ['[', ',', ']', '\n'].map((c) => c.charCodeAt(0));

/**
 * The first `take` of the rows jsonLinesSql gave, as a JSON array (see jsonPage). A large page's text is encoded
 * once into the array's bytes, each line break between rows made a comma there (UTF-8 never holds the byte of a
 * line break inside another character), and no other string of its size is built.
 */
function pageOfLines<L>(lines: string | null, take: number): JsonPage<L> {
  if (!lines) return { json: '[]', found: 0, count: 0, last: null };
  let found = 1;
  let end = lines.length;
  let lastStart = 0;
  for (let at = lines.indexOf('\n'); at !== -1; at = lines.indexOf('\n', at + 1)) {
    if (found === take) end = at;
    if (found < take) lastStart = at + 1;
    found++;
  }
  const kept = lines.slice(0, end);
  return {
    json: kept.length > LARGE_PAGE ? arrayBytes(kept) : `[${kept.replaceAll('\n', ',')}]`,
    found,
    count: Math.min(found, take),
    // Decoded only for a caller that makes a cursor of it.
    get last() {
      return JSON.parse(kept.slice(lastStart)) as L;
    },
  };
}

/** Lines of JSON as the bytes of one JSON array (see pageOfLines). */
function arrayBytes(lines: string): Buffer {
  const json = Buffer.allocUnsafe(Buffer.byteLength(lines) + 2);
  json[0] = OPEN;
  const written = json.write(lines, 1);
  json[written + 1] = CLOSE;
  for (let at = json.indexOf(LINE_BREAK, 1); at !== -1; at = json.indexOf(LINE_BREAK, at + 1)) json[at] = COMMA;
  return json;
}
