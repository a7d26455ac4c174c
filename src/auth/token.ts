import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'sm_live_';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RANDOM_LENGTH = 40; // 40 base62 characters: about 238 bits
const WELL_FORMED = /^sm_live_[A-Za-z0-9]{32,128}$/;

/** A new API key: the prefix and 40 characters drawn uniformly from base62 (rejection sampling, no modulo bias). */
export function generateToken(): string {
  let out = '';
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < RANDOM_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return TOKEN_PREFIX + out;
}

export function isWellFormedToken(token: string): boolean {
  return WELL_FORMED.test(token);
}

/** Keys are stored and looked up only by this digest. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What `tokens list` shows: enough to tell keys apart, far too little to use one. */
export function tokenHint(token: string): string {
  return `${token.slice(0, TOKEN_PREFIX.length + 4)}…`;
}
