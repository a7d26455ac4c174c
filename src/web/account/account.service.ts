import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { ApiKeyEntity, Scope } from '../../auth/entities/api-key.entity.js';
import { ApiKeysService, KeyError } from '../../auth/api-keys.service.js';
import { DECOY_HASH, verifyPassword } from '../../users/password.js';
import { UsersService } from '../../users/users.service.js';
import { AccountRepository, type SessionUser } from './account.repository.js';

export const SESSION_DAYS = 7;

/** Failures before sign-ins are slowed, per email address and per client address. */
const THRESHOLDS = { email: 5, ip: 20 };
const FIRST_WAIT_SECONDS = 15;
const MAX_WAIT_SECONDS = 15 * 60;

/** A refusal the account page shows as a page of its own, with its status. */
export class AccountError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const randomToken = () => randomBytes(32).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Compares two secrets in constant time; unequal lengths are simply unequal. */
export function sameSecret(a: string | undefined, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Seconds to wait before the next attempt after `failures` recent ones, given the threshold. */
export function waitAfter(failures: number, threshold: number): number {
  if (failures < threshold) return 0;
  return Math.min(FIRST_WAIT_SECONDS * 2 ** (failures - threshold), MAX_WAIT_SECONDS);
}

function tooMany(wait: number): AccountError {
  return new AccountError(429, 'Too many attempts', `Too many failed sign-ins. Try again in ${wait} seconds.`, {
    'retry-after': String(wait),
  });
}

@Injectable()
export class AccountService {
  constructor(
    private readonly account: AccountRepository,
    private readonly keys: ApiKeysService,
    private readonly users: UsersService,
  ) {}

  /**
   * Signs in: refused while earlier failures for this address or this client still call for a wait (429 with
   * Retry-After, the password unchecked); the same message for an unknown address, a wrong password and a
   * disabled user, in about the same time. Returns the new session's cookie value.
   */
  async signIn(emailInput: string, password: string, clientIp: string): Promise<string> {
    const email = UsersService.normaliseEmail(emailInput).slice(0, 254);
    const keys = { email: `email:${email}`, ip: `ip:${clientIp}` };
    const threshold = (key: string) => (key === keys.email ? THRESHOLDS.email : THRESHOLDS.ip);
    const seen = await this.account.recentFailures([keys.email, keys.ip]);
    const wait = Math.max(0, ...seen.map((f) => Math.ceil(waitAfter(f.failures, threshold(f.key)) - f.age)));
    if (wait > 0) throw tooMany(wait);
    // Counted before the password is checked: attempts racing past the check above are refused here.
    const counted = await this.account.reserveAttempt([keys.email, keys.ip]);
    for (const [key, failures] of counted) {
      const before = seen.find((f) => f.key === key)?.failures ?? 0;
      const overtaken = failures - 1 > before ? waitAfter(failures - 1, threshold(key)) : 0;
      if (overtaken > 0) throw tooMany(overtaken);
    }
    const user = await this.users.findByEmail(email);
    const matches = await verifyPassword(password.slice(0, 1000), user?.passwordHash ?? DECOY_HASH);
    if (!user || !matches || user.disabledAt) throw new AccountError(401, 'Sign in', 'Wrong email or password.');
    await this.account.attemptSucceeded(keys.email, keys.ip);
    const sessionId = randomToken();
    await this.account.createSession(sha256(sessionId), user.id, randomToken(), SESSION_DAYS);
    return sessionId;
  }

  async session(sessionId: string | undefined): Promise<SessionUser | undefined> {
    if (!sessionId || sessionId.length > 100) return undefined;
    return this.account.sessionUser(sha256(sessionId));
  }

  async signOut(sessionId: string): Promise<void> {
    await this.account.endSession(sha256(sessionId));
  }

  listKeys(userId: string): Promise<ApiKeyEntity[]> {
    return this.keys.list(userId);
  }

  /** A new key for the signed-in user; a bad name comes back as the reason, shown beside the form. */
  async createKey(userId: string, name: string, scopes: Scope[]): Promise<{ token: string } | { problem: string }> {
    try {
      const { token } = await this.keys.create(name.trim(), userId, scopes);
      return { token };
    } catch (error) {
      if (error instanceof KeyError)
        return { problem: `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.` };
      throw error;
    }
  }

  /** Revokes one of the user's own keys; any other id is answered as not found. */
  async revokeKey(userId: string, keyId: string): Promise<void> {
    if (!(await this.keys.revokeOwn(userId, keyId))) {
      throw new AccountError(404, 'Not found', 'You have no active key with this id.');
    }
  }
}
