import type { EntityManager } from 'typeorm';
import { rows } from '../../database/sql.js';
import type { HttpProbe, Takeover } from '../model/knowledge.js';

/** A host's probe as the prober hands it over. */
export interface HostProbe extends HttpProbe {
  host: string;
  takeover: Takeover | null;
}

/** What an http_changed event keeps on either side. */
const changeJson = (alias: string, status: string) =>
  `jsonb_build_object('listening', ${alias}.listening, 'scheme', ${alias}.scheme, 'port', ${alias}.port,
                      'status', ${alias}.${status}, 'title', ${alias}.title)`;

/** A probe as kept: final_url only when a redirect moved it (the rest of the time it is the start URL, rebuilt). */
function keptForm(p: HostProbe): HostProbe {
  if (!p.listening || !p.scheme || !p.port) return p;
  const port = (p.scheme === 'https' && p.port === 443) || (p.scheme === 'http' && p.port === 80) ? '' : `:${p.port}`;
  return p.final_url === `${p.scheme}://${p.host}${port}/` ? { ...p, final_url: null } : p;
}

/**
 * Keeps the probes of a domain's hosts (host_intel) in one statement inside the caller's transaction: a change of
 * whether anything answers, of the status or of the title raises http_changed with both sides; a page showing the
 * error text of a vulnerable service the host's alias points at raises takeover_candidate once. Returns how many
 * events were raised.
 */
export async function recordProbes(m: EntityManager, domainId: number, probes: HostProbe[]): Promise<number> {
  if (probes.length === 0) return 0;
  const [{ raised }] = await rows<{ raised: number }>(
    m,
    `WITH input AS (
       SELECT DISTINCT ON (h.id) h.id AS host_id, i.*
         FROM jsonb_to_recordset($2::jsonb) AS i(
                host text, listening boolean, scheme text, port integer, status integer, final_url text, title text,
                server text, content_length bigint, tls_subject text, tls_issuer text, tls_not_after timestamptz,
                takeover jsonb)
         JOIN hosts h ON h.domain_id = $1 AND h.host = i.host
     ), compared AS (
       SELECT i.*, k.listening IS NOT NULL AS kept,
              (k.listening, k.http_status, k.title) IS DISTINCT FROM (i.listening, i.status, i.title) AS differs,
              coalesce((i.takeover ->> 'vulnerable')::boolean, false)
                AND k.http_takeover IS DISTINCT FROM i.takeover AS candidate,
              ${changeJson('k', 'http_status')} AS before, ${changeJson('i', 'status')} AS after
         FROM input i LEFT JOIN host_intel k ON k.host_id = i.host_id
     ), events AS (
       INSERT INTO host_events (type, host_id, domain_id, before, after)
       SELECT 'http_changed', host_id, $1, before, after FROM compared WHERE kept AND differs
       UNION ALL
       SELECT 'takeover_candidate', host_id, $1, NULL, takeover - 'vulnerable' FROM compared WHERE candidate
       RETURNING 1
     ), kept AS (
       INSERT INTO host_intel (host_id, listening, scheme, port, http_status, final_url, title, server, content_length,
                               tls_subject, tls_issuer, tls_not_after, http_takeover, probed_at)
       SELECT host_id, listening, scheme, port, status, final_url, title, server, content_length,
              tls_subject, tls_issuer, tls_not_after, takeover, now()
         FROM compared
       ON CONFLICT (host_id) DO UPDATE
         SET listening = excluded.listening, scheme = excluded.scheme, port = excluded.port,
             http_status = excluded.http_status, final_url = excluded.final_url, title = excluded.title,
             server = excluded.server, content_length = excluded.content_length,
             tls_subject = excluded.tls_subject, tls_issuer = excluded.tls_issuer,
             tls_not_after = excluded.tls_not_after, http_takeover = excluded.http_takeover, probed_at = now()
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM events)::int AS raised, (SELECT count(*) FROM kept)::int AS kept`,
    [domainId, JSON.stringify(probes.map(keptForm))],
  );
  return raised;
}
