import { EnumListParam } from '../../common/validation/query-params.js';
import { HOST_FIELDS } from './host-fields.js';

/** What each field adds, for the parameter's description in the OpenAPI document. */
export const FIELDS_VOCABULARY =
  'dns (the last DNS answer: status, A, AAAA, CNAME chain, resolved_at; null when never resolved), http (the last ' +
  'HTTP probe: scheme, port, status, final URL, title, Server, length, TLS certificate, probed_at; null when never ' +
  'probed), takeover (the service a dangling alias points at; null), wildcard (true for an echo of its zone’s ' +
  'wildcard answer), and flat: ips (A then AAAA addresses), cname (the chain), status (HTTP status), title (page ' +
  'title); empty arrays or null where nothing is known';

/**
 * `fields`: what is known of each host, as extra keys of each row after the default ones, in the order asked. Each
 * name once (`dns,dns` is `dns`); an unknown one is 400 invalid_query naming the valid ones.
 */
export function FieldsParam(extra = ''): PropertyDecorator {
  return EnumListParam(
    HOST_FIELDS,
    `What is known of each host, a comma list of ${HOST_FIELDS.join(', ')}: ${FIELDS_VOCABULARY}. Without it a ` +
      `row carries no knowledge (lean rows); filters work without it.${extra ? ` ${extra}` : ''}`,
    'dns,http',
  );
}
