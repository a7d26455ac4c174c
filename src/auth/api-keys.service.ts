import { Injectable } from '@nestjs/common';
import { AppError, type ErrorCode } from '../common/errors/app-error.js';
import { CONTROL_CHARACTERS_PROBLEM, hasControlCharacters } from '../common/validation/control-characters.js';
import type { ApiKeyEntity, Scope } from './entities/api-key.entity.js';
import { UUID } from '../common/validation/param.pipes.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { generateToken, hashToken, isWellFormedToken, tokenHint } from './token.js';

export interface AuthenticatedKey {
  id: string;
  name: string;
  userId: string;
  scopes: Scope[];
}

/**
 * Most active keys one user holds: enough for every tool and machine a person runs, few enough that limits
 * counted per owner (streams) cannot be multiplied by creating keys. Operator keys (no user) are not capped.
 */
export const MAX_ACTIVE_KEYS_PER_USER = 25;

/**
 * Who a key's use counts against: its user when it has one (users' ids are UUIDs), else the key itself (operator
 * keys, which name no user). The dashboard's session counts as its user, so a user's keys and browser tabs share.
 */
export const ownerOf = (key: Pick<AuthenticatedKey, 'id' | 'userId'>): string =>
  UUID.test(key.userId) ? userOwner(key.userId) : `key:${key.id}`;

/** A user as an owner (see ownerOf): their keys and their dashboard session count together. */
export const userOwner = (userId: string): string => `user:${userId}`;

export class KeyError extends AppError {
  constructor(message: string, code: ErrorCode = 'invalid_body') {
    super(code, message);
  }
}

@Injectable()
export class ApiKeysService {
  constructor(private readonly keys: ApiKeysRepository) {}

  /** The identity behind a presented token, or the contract's 401 error. */
  async authenticate(token: string): Promise<AuthenticatedKey> {
    if (!isWellFormedToken(token)) throw new AppError('invalid_token', 'API key is malformed');
    const key = await this.keys.findByHashAndTouch(hashToken(token));
    if (!key) throw new AppError('invalid_token', 'API key is not recognised');
    if (key.revoked) throw new AppError('revoked_token', 'API key has been revoked by its owner');
    // The contract's codes are fixed; a disabled owner's key is as dead as a revoked one, so it says revoked_token.
    if (key.ownerDisabled) throw new AppError('revoked_token', "API key's owner has been disabled");
    return { id: key.id, name: key.name, userId: key.userId, scopes: key.scopes };
  }

  /** Creates a key; the token is returned this once and only its hash is kept. */
  async create(name: string, userId: string, scopes: Scope[]): Promise<{ key: ApiKeyEntity; token: string }> {
    if (hasControlCharacters(name)) throw new KeyError(CONTROL_CHARACTERS_PROBLEM('name'));
    if (!/^\S(.{0,98}\S)?$/.test(name))
      throw new KeyError('name must be 1 to 100 characters, not starting or ending with a space');
    if (UUID.test(userId) && (await this.keys.countActive(userId)) >= MAX_ACTIVE_KEYS_PER_USER) {
      throw new KeyError(`a user holds at most ${MAX_ACTIVE_KEYS_PER_USER} active keys: revoke one first`);
    }
    const token = generateToken();
    try {
      const key = await this.keys.insert({
        name,
        userId,
        keyHash: hashToken(token),
        keyHint: tokenHint(token),
        scopes,
      });
      return { key, token };
    } catch (error) {
      // The same name created twice at once: the index decides, and the loser hears why.
      if ((error as { constraint?: string }).constraint === 'api_keys_user_active_name_idx') {
        throw new KeyError(`an active key named "${name}" already exists`);
      }
      throw error;
    }
  }

  /** Every key, or one user's. */
  list(userId?: string): Promise<ApiKeyEntity[]> {
    return this.keys.list(userId);
  }

  /** The operator's revoke: by id, or by a name only one active key has (names are unique per user). */
  async revoke(idOrName: string): Promise<{ id: string; name: string }> {
    let id = idOrName;
    if (!UUID.test(idOrName)) {
      const named = await this.keys.activeIdsNamed(idOrName);
      if (named.length > 1) {
        throw new KeyError(`${named.length} active keys are named "${idOrName}" (of different users): give the id`);
      }
      id = named[0] ?? '';
    }
    const revoked = await this.keys.revoke(id);
    if (!revoked) throw new KeyError(`no active key with id or name "${idOrName}"`, 'not_found');
    return revoked;
  }

  /** An owner's revoke on the account page: only a key of theirs; null when it is not (or not active). */
  revokeOwn(userId: string, id: string): Promise<{ id: string; name: string } | null> {
    return this.keys.revoke(id, userId);
  }
}
