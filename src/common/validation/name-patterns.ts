/**
 * The syntax of the names the API takes, written once: the validators compile these patterns, and the OpenAPI
 * document states them, so the two cannot disagree. Each is plain enough for every engine a client or a tool may
 * use (ECMAScript, RE2, PCRE): no lookaround, no backreference, no flag.
 */

/** A DNS label as root domains have them: 1 to 63 letters, digits and '-', not first or last. */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** A top-level label starts with a letter (RFC 1123 2.1): `1.2.3.4` is an address, not a domain. */
const TOP_LABEL = '[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** A label as host names have them: '_' too (`_dmarc`, `_sip._tls`), which certificates and DNS lists carry. */
const HOST_LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';

/** A bare lowercase domain name of two labels or more. Whether it is registrable is the Public Suffix List's. */
export const ROOT_DOMAIN_PATTERN = `^(?:${LABEL}\\.)+${TOP_LABEL}$`;
/** A host name as the service records them: lowercase, two labels or more. */
export const HOST_NAME_PATTERN = `^${HOST_LABEL}(?:\\.${HOST_LABEL})+$`;
/** Text without C0 controls or DEL (PostgreSQL refuses NUL, and no name holds the rest). */
export const NO_CONTROL_PATTERN = '^[^\\x00-\\x1f\\x7f]*$';

/**
 * An instant as event ids and cursors write it: UTC, six fraction digits, 1970 to 9999, every field in its range
 * (a day past its month's end is left to normalizeTimestamp). No capture group, so it can sit inside others.
 */
export const UTC_MICROS_PATTERN =
  '(?:19[7-9][0-9]|[2-9][0-9]{3})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])' +
  'T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\\.[0-9]{6}Z';

/** DNS's limit on a name, dots included. */
export const MAX_NAME_LENGTH = 253;

export const ROOT_DOMAIN_SCHEMA = {
  type: 'string',
  minLength: 3,
  maxLength: MAX_NAME_LENGTH,
  pattern: ROOT_DOMAIN_PATTERN,
} as const;

export const HOST_NAME_SCHEMA = {
  type: 'string',
  minLength: 3,
  maxLength: MAX_NAME_LENGTH,
  pattern: HOST_NAME_PATTERN,
} as const;
