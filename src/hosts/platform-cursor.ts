import { createHash } from 'node:crypto';
import { AppError } from '../common/errors/app-error.js';
import type { PlatformPosition } from './host-lists.sql.js';

/**
 * The platform feed's cursor: the last (domain, host) of a page, base64url-encoded with a checksum. It is
 * opaque to clients; a cursor that was edited or truncated fails the checksum and answers 400 invalid_query.
 * It carries no secret: it names a host the client has already received.
 */
const VERSION = 'c1';
/** A name PostgreSQL can compare: at most 253 characters, no control character (a NUL would fail the statement). */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const NAME = /^[^\u0000-\u001f\u007f]{0,253}$/u;

function checksum(payload: string): string {
  return createHash('sha256').update(`subdomain-monitor:platform-cursor:${payload}`).digest('base64url').slice(0, 12);
}

export function encodePlatformCursor(position: PlatformPosition): string {
  const payload = Buffer.from(JSON.stringify([position.domain, position.host])).toString('base64url');
  return `${VERSION}.${payload}.${checksum(payload)}`;
}

export function decodePlatformCursor(cursor: string): PlatformPosition {
  const invalid = () => AppError.invalidQuery('cursor is not a cursor this service issued; start again without one');
  const [version, payload, sum, ...rest] = cursor.split('.');
  if (version !== VERSION || !payload || !sum || rest.length > 0 || checksum(payload) !== sum) throw invalid();
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    // The checksum is no secret, so a cursor can be forged: what it names must still be names the service stores.
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((v) => typeof v === 'string' && NAME.test(v)) &&
      value[0] !== ''
    ) {
      const [domain, host] = value as [string, string];
      return { domain, host };
    }
  } catch {
    // falls through to the same answer as any other bad cursor
  }
  throw invalid();
}
