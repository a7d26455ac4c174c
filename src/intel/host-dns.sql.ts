import type { EntityManager } from 'typeorm';
import { isoSql, rows } from '../database/sql.js';
import type { DnsAnswer } from './dns-answer.js';
import { httpSql } from './host-http.sql.js';
import { takeoverByDns } from './takeover.js';

/** A host's answer as the liveness phase hands it over. */
export interface HostAnswer extends DnsAnswer {
  host: string;
}

/** The JSON a dns_changed event keeps on either side, and host rows show as `dns` (with resolved_at). */
const answerJson = (alias: string) =>
  `jsonb_build_object('status', ${alias}.status, 'a', to_jsonb(${alias}.a), 'aaaa', to_jsonb(${alias}.aaaa),
                      'cname', to_jsonb(${alias}.cname))`;

/**
 * Keeps the DNS answers of a domain's hosts (host_dns), inside the caller's transaction (after writing()), in
 * one statement: hosts not recorded (a new name that did not resolve) are passed over, an answer that differs from
 * the kept one in status or in any record set raises a dns_changed event with both, and the same answer again
 * changes nothing but resolved_at. A timeout is no answer: it never replaces one that was kept, and raises
 * nothing. An alias chain that dangles onto a service of the takeover list is kept as `takeover`, and raises a
 * takeover_candidate event when the service is one the list marks vulnerable and the host was not already so
 * flagged. A host named twice keeps one of its answers. Returns how many events were raised.
 */
export async function recordAnswers(m: EntityManager, domainId: number, answers: HostAnswer[]): Promise<number> {
  if (answers.length === 0) return 0;
  const input = answers.map((a) => ({ ...a, takeover: takeoverByDns(a) }));
  const [{ changed }] = await rows<{ changed: number }>(
    m,
    `WITH input AS (
       SELECT DISTINCT ON (h.id) h.id AS host_id, i.status, i.a, i.aaaa, i.cname, i.takeover
         FROM jsonb_to_recordset($2::jsonb)
              AS i(host text, status text, a text[], aaaa text[], cname text[], takeover jsonb)
         JOIN hosts h ON h.domain_id = $1 AND h.host = i.host
     ), compared AS (
       SELECT i.*, k.host_id IS NOT NULL AS kept,
              (k.status, k.a, k.aaaa, k.cname) IS DISTINCT FROM (i.status, i.a, i.aaaa, i.cname) AS differs,
              coalesce((i.takeover ->> 'vulnerable')::boolean, false)
                AND k.takeover IS DISTINCT FROM i.takeover AS candidate,
              ${answerJson('k')} AS before, ${answerJson('i')} AS after
         FROM input i LEFT JOIN host_dns k ON k.host_id = i.host_id
        WHERE NOT (i.status = 'timeout' AND k.host_id IS NOT NULL)
     ), events AS (
       INSERT INTO host_events (type, host_id, domain_id, before, after)
       SELECT 'dns_changed', host_id, $1, before, after FROM compared WHERE kept AND differs
       UNION ALL
       SELECT 'takeover_candidate', host_id, $1, NULL, takeover - 'vulnerable' FROM compared WHERE candidate
       RETURNING 1
     ), kept AS (
       INSERT INTO host_dns (host_id, status, a, aaaa, cname, takeover)
       SELECT host_id, status, a, aaaa, cname, takeover FROM compared
       ON CONFLICT (host_id) DO UPDATE
         SET status = excluded.status, a = excluded.a, aaaa = excluded.aaaa, cname = excluded.cname,
             takeover = excluded.takeover, resolved_at = now(),
             changed_at = CASE WHEN (host_dns.status, host_dns.a, host_dns.aaaa, host_dns.cname)
                                    IS DISTINCT FROM (excluded.status, excluded.a, excluded.aaaa, excluded.cname)
                               THEN now() ELSE host_dns.changed_at END
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM events)::int AS changed, (SELECT count(*) FROM kept)::int AS kept`,
    [domainId, JSON.stringify(input)],
  );
  return changed;
}

/**
 * A host row's `dns` (null when never resolved), `takeover` (null unless its alias points at a listed service that
 * the DNS answer or the probed page shows unclaimed) and `http` (null when never probed) as select expressions:
 * primary-key reads of host_dns and host_http per row of the page, so a list's own plan is not changed by them.
 */
export const knowledgeSql = (host = 'h') =>
  `(SELECT ${answerJson('hd')} || jsonb_build_object('resolved_at', ${isoSql('hd.resolved_at')})
      FROM host_dns hd WHERE hd.host_id = ${host}.id) AS dns,
   coalesce((SELECT hd.takeover FROM host_dns hd WHERE hd.host_id = ${host}.id),
            (SELECT hh.takeover FROM host_http hh WHERE hh.host_id = ${host}.id)) - 'vulnerable' AS takeover,
   ${httpSql(host)}`;
