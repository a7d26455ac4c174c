import type { EntityManager } from 'typeorm';
import { rows } from '../../database/sql.js';
import type { DnsAnswer } from '../model/dns-answer.js';
import { guessedOnly } from '../model/host-sources.js';
import type { Takeover } from '../model/knowledge.js';

/** A host's answer as the liveness phase hands it over. */
export interface HostAnswer extends DnsAnswer {
  host: string;
}

/** An answer with the takeover verdict the caller reached by DNS (intel/takeover). */
export interface ClassifiedAnswer extends HostAnswer {
  takeover: Takeover | null;
}

/** The zone of a host name in SQL: the name without its first label (see zoneOf). */
const zoneSql = (host: string) => `substr(${host}, strpos(${host}, '.') + 1)`;

/** The JSON a dns_changed event keeps on either side, and host rows show as `dns` (with resolved_at). */
const answerJson = (alias: string, status = 'dns_status') =>
  `jsonb_build_object('status', ${alias}.${status}, 'a', to_jsonb(coalesce(${alias}.a, '{}')),
                      'aaaa', to_jsonb(coalesce(${alias}.aaaa, '{}')), 'cname', to_jsonb(coalesce(${alias}.cname, '{}')))`;

/**
 * Keeps the DNS answers of a domain's hosts (host_intel), inside a HostStore transaction, in
 * one statement: hosts not recorded (a new name that did not resolve) are passed over, an answer that differs from
 * the kept one in status or in any record set raises a dns_changed event with both, and the same answer again
 * changes nothing but resolved_at. A timeout is no answer: it never replaces one that was kept, and raises
 * nothing. An alias chain that dangles onto a service of the takeover list is kept as `takeover`, and raises a
 * takeover_candidate event when the service is one the list marks vulnerable and the host was not already so
 * flagged. A host named twice keeps one of its answers. Returns how many events were raised.
 */
export async function recordAnswers(m: EntityManager, domainId: number, input: ClassifiedAnswer[]): Promise<number> {
  if (input.length === 0) return 0;
  const [{ changed }] = await rows<{ changed: number }>(
    m,
    `WITH input AS (
       SELECT DISTINCT ON (h.id) h.id AS host_id, i.status,
              nullif(i.a, '{}') AS a, nullif(i.aaaa, '{}') AS aaaa, nullif(i.cname, '{}') AS cname, i.takeover,
              -- Only guesses found it (brute force, permutations), and it resolves to nothing but its zone's
              -- wildcard answers.
              coalesce(${guessedOnly('h.sources')} AND cardinality(i.a || i.aaaa) > 0
                       AND (i.a || i.aaaa) <@ (SELECT w.answers FROM wildcard_zones w
                                                WHERE w.domain_id = $1 AND w.zone = ${zoneSql('h.host')}
                                                  AND cardinality(w.answers) > 0), false) AS wildcard
         FROM jsonb_to_recordset($2::jsonb)
              AS i(host text, status text, a text[], aaaa text[], cname text[], takeover jsonb)
         JOIN hosts h ON h.domain_id = $1 AND h.host = i.host
     ), compared AS (
       SELECT i.*, k.dns_status IS NOT NULL AS kept,
              (k.dns_status, k.a, k.aaaa, k.cname) IS DISTINCT FROM (i.status, i.a, i.aaaa, i.cname) AS differs,
              coalesce((i.takeover ->> 'vulnerable')::boolean, false)
                AND k.dns_takeover IS DISTINCT FROM i.takeover AS candidate,
              ${answerJson('k')} AS before, ${answerJson('i', 'status')} AS after
         FROM input i LEFT JOIN host_intel k ON k.host_id = i.host_id
        WHERE NOT (i.status = 'timeout' AND k.dns_status IS NOT NULL)
     ), events AS (
       INSERT INTO host_events (type, host_id, domain_id, before, after)
       SELECT 'dns_changed', host_id, $1, before, after FROM compared WHERE kept AND differs
       UNION ALL
       SELECT 'takeover_candidate', host_id, $1, NULL, takeover - 'vulnerable' FROM compared WHERE candidate
       RETURNING 1
     ), kept AS (
       INSERT INTO host_intel (host_id, dns_status, a, aaaa, cname, dns_takeover, resolved_at, wildcard)
       SELECT host_id, status, a, aaaa, cname, takeover, now(), nullif(wildcard, false) FROM compared
       ON CONFLICT (host_id) DO UPDATE
         SET dns_status = excluded.dns_status, a = excluded.a, aaaa = excluded.aaaa, cname = excluded.cname,
             dns_takeover = excluded.dns_takeover, resolved_at = now(), wildcard = excluded.wildcard
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM events)::int AS changed, (SELECT count(*) FROM kept)::int AS kept`,
    [domainId, JSON.stringify(input)],
  );
  return changed;
}
