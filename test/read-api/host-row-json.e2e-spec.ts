import { hoursAgo, seedDomain } from '../fixtures/data.js';
import { type TestApp, startTestApp } from '../fixtures/test-app.js';
import { nodePage } from '../../src/database/json-pages.js';
import type { Statement } from '../../src/database/sql.js';
import {
  domainHostsStatements,
  domainNewStatement,
  newFeedStatement,
  platformPageStatement,
  searchStatement,
} from '../../src/hosts/host-lists.sql.js';
import { HOST_FIELDS, type HostField } from '../../src/hosts/model/host-fields.js';
import type { KnowledgeFilter, ScopeMode } from '../../src/hosts/model/knowledge-filter.js';

/**
 * Host lists write each row's JSON by concatenation (Statement.json, see rowJson in host-fields.ts), which costs
 * PostgreSQL less than row_to_json. It must write the very text row_to_json would: the same keys in the same order,
 * the same escaping of what a page or a DNS server said, the same nulls. The pages written in Node (nodePage) hold
 * the same JSON values. Each list's statement, with no fields and
 * with every field, on both sides of the scope, over hosts with everything known, nothing known, and hostile text.
 */
describe('host rows: concatenated JSON is row_to_json, character for character', () => {
  let t: TestApp;
  let domainId: number;
  const base = Date.now();
  const since = hoursAgo(48, base).toISOString();

  beforeAll(async () => {
    t = await startTestApp();
    const domain = await seedDomain(t, {
      domain: 'json.test',
      platform: 'bugcrowd',
      program: 'Json "Program"',
      hosts: [
        { host: 'api.json.test', firstSeenAt: hoursAgo(1, base), sources: ['ct', 'crtsh'] },
        { host: '_dmarc.json.test', firstSeenAt: hoursAgo(2, base), sources: [] },
        { host: 'xn--bcher-kva.json.test', firstSeenAt: hoursAgo(3, base), sources: ['dns', 'ct'], active: false },
        { host: 'bare.json.test', firstSeenAt: hoursAgo(4, base), sources: ['crtsh'] },
        { host: 'out.json.test', firstSeenAt: hoursAgo(5, base), sources: ['ct'] },
      ],
    });
    domainId = domain.id;
    // Everything known of api (hostile text where outside text goes), an answer and an alias of the others.
    const hostile = 'a "quoted" \\ back\nslash\t\u0001 </script> é 🦀 \u2028';
    await t.dataSource.query(
      `INSERT INTO host_intel (host_id, dns_status, a, aaaa, cname, dns_takeover, resolved_at, listening, scheme, port,
                               http_status, final_url, title, server, content_length, tls_subject, tls_issuer,
                               tls_not_after, http_takeover, probed_at, wildcard, out_of_scope)
       SELECT h.id, v.dns_status, v.a, v.aaaa, v.cname, v.dns_takeover, now(), v.listening, v.scheme, v.port,
              v.http_status, v.final_url, v.title, v.server, v.content_length, v.tls_subject, v.tls_issuer,
              CASE WHEN v.tls_subject IS NOT NULL THEN now() END, v.http_takeover,
              CASE WHEN v.listening IS NOT NULL THEN now() END, v.wildcard, v.out_of_scope
         FROM (VALUES
           ('api.json.test', 'resolved', '{192.0.2.1,192.0.2.2}'::text[], '{2001:db8::1}'::text[],
            ARRAY['a"b\\c.cdn.test', 'edge.cdn.test'], NULL::jsonb, true, 'https', 8443, 200, 'https://x.test/"\\',
            $1::text, $1::text, 9007199254740993::bigint, $1::text, 'CN=Issuer "R3"',
            '{"service": "Cloud \\"x\\"", "status": "Vulnerable", "evidence": "<b>", "vulnerable": true}'::jsonb,
            false, false),
           ('_dmarc.json.test', 'nxdomain', NULL, NULL, '{gone.cloud.test}', '{"service": "S3", "vulnerable": false}',
            false, 'http', 80, NULL, NULL, '', NULL, 0, NULL, NULL, NULL, NULL, NULL),
           ('xn--bcher-kva.json.test', 'resolved', '{}', '{}', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            NULL, NULL, NULL, NULL, true, NULL),
           ('out.json.test', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            NULL, NULL, true)
         ) AS v(host, dns_status, a, aaaa, cname, dns_takeover, listening, scheme, port, http_status, final_url, title,
                server, content_length, tls_subject, tls_issuer, http_takeover, wildcard, out_of_scope)
         JOIN hosts h ON h.host = v.host`,
      [hostile],
    );
    // The rule that set out.json.test out of scope: only a root with rules has hosts out of scope (ruledRoot).
    await t.dataSource.query(
      `INSERT INTO scope_rules (domain_id, kind, pattern, regex) VALUES ($1, 'host', 'out.json.test', '^out\\.json\\.test$')`,
      [domainId],
    );
  });
  afterAll(() => t.close());

  /**
   * Each row of `statement` as row_to_json writes it and as its json expression does. The fields are JSON text in
   * the statement's rows (Statement.jsonText): row_to_json is given them as json.
   */
  async function bothWays(statement: Statement): Promise<{ rowToJson: string; json: string }[]> {
    expect(statement.json).toBeDefined();
    const [first] = await t.dataSource.query<Record<string, unknown>[]>(
      `SELECT * FROM (${statement.sql}) r LIMIT 1`,
      statement.params,
    );
    if (!first) return [];
    const columns = Object.keys(first).map((c) =>
      statement.jsonText?.includes(c) ? `r.${c}::json AS ${c}` : `r.${c}`,
    );
    return t.dataSource.query(
      `SELECT row_to_json(x)::text AS "rowToJson", ${statement.json} AS json
         FROM (${statement.sql}) r, LATERAL (SELECT ${columns.join(', ')}) x`,
      statement.params,
    );
  }

  const everything: KnowledgeFilter = { wildcard: 'include', scope: 'all' };
  const LISTS: [string, (fields: HostField[], knowledge: KnowledgeFilter) => Statement][] = [
    ['/subdomains/new', (fields, knowledge) => newFeedStatement({ since, limit: 50, knowledge, fields })],
    [
      '/platforms/{slug}/subdomains/new',
      (fields, knowledge) => newFeedStatement({ since, limit: 50, platform: 'bugcrowd', knowledge, fields }),
    ],
    [
      '/platforms/{slug}/subdomains',
      (fields, knowledge) =>
        platformPageStatement({ platform: 'bugcrowd', limit: 50, activeOnly: false, scope: knowledge.scope, fields }),
    ],
    [
      '/domains/{domain}/subdomains',
      (fields, knowledge) =>
        domainHostsStatements({
          domain: { id: domainId, domain: 'json.test', total: 5, active: 4, hasScopeRules: true },
          filter: 'all',
          knowledge,
          fields,
          limit: 50,
          offset: 0,
        }).page,
    ],
    [
      '/domains/{domain}/subdomains/new',
      (fields, knowledge) => domainNewStatement({ id: domainId, hasScopeRules: true }, since, 50, knowledge, fields),
    ],
    ['/subdomains/search', (fields, knowledge) => searchStatement('json', 50, 0, knowledge, fields)],
  ];
  const SCOPES: (ScopeMode | undefined)[] = ['all', 'in', 'out'];

  it.each(LISTS)('%s', async (_list, statement) => {
    let compared = 0;
    for (const fields of [[], [...HOST_FIELDS]]) {
      for (const scope of SCOPES) {
        const asked = statement(fields, { ...everything, scope });
        const found = await bothWays(asked);
        for (const r of found) expect(r.json).toEqual(r.rowToJson);
        // The same rows written in Node (nodePage: a domain's feed with fields; any list could be).
        const page = await nodePage(t.dataSource, asked, 50);
        expect(String(page.json)).toBe(`[${found.map((r) => r.rowToJson).join(',')}]`);
        compared += found.length;
      }
    }
    // Every host in each scope (all, in, out), once without fields and once with them.
    expect(compared).toBe(2 * (5 + 4 + 1));
  });

  it('reads hostile text back as it was stored', async () => {
    const [row] = await bothWays(searchStatement('api.json', 1, 0, everything, ['title', 'cname', 'http']));
    const parsed = JSON.parse(row.json) as { title: string; cname: string[]; http: { server: string } };
    expect(parsed.title).toBe('a "quoted" \\ back\nslash\t\u0001 </script> é 🦀 \u2028');
    expect(parsed.http.server).toBe(parsed.title);
    expect(parsed.cname).toEqual(['a"b\\c.cdn.test', 'edge.cdn.test']);
  });
});
