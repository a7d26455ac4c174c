import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { UUID } from '../common/validation/param.pipes.js';
import { preparedRows, rows } from '../database/sql.js';
import { ApiKeyEntity, type Scope } from './entities/api-key.entity.js';
import { GenerateSql } from '../database/generate-sql.js';

export interface KeyLookup {
  id: string;
  name: string;
  userId: string;
  scopes: Scope[];
  revoked: boolean;
  /** The key belongs to a user whose account is disabled (users.disabled_at). */
  ownerDisabled: boolean;
}

/**
 * One round trip per request: the key by its hash (unique index api_keys_key_hash_key), whether its owner is a
 * disabled user (users' primary key; api_keys.user_id is text and may name no user, so only a UUID is cast) and,
 * at most once a minute, a record of its use. Exported for the benchmark's floor server, which must run the same
 * statement.
 */
export const KEY_LOOKUP_SQL = `WITH k AS (
         SELECT id, name, user_id, scopes, revoked_at, last_used_at,
                EXISTS (SELECT 1 FROM users u
                         WHERE u.id = CASE WHEN api_keys.user_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                                           THEN api_keys.user_id::uuid END
                           AND u.disabled_at IS NOT NULL) AS owner_disabled
           FROM api_keys WHERE key_hash = $1
       ), touch AS (
         UPDATE api_keys SET last_used_at = now() FROM k
          WHERE api_keys.id = k.id AND k.revoked_at IS NULL AND NOT k.owner_disabled
            AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')
       )
       SELECT id, name, user_id, scopes, revoked_at IS NOT NULL AS revoked, owner_disabled FROM k`;

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /**
   * One round trip per request: finds the key by its hash (unique index api_keys_key_hash_key) and, at most
   * once a minute, records its use. Nothing is cached, so a revocation, or disabling the key's owner, holds on the
   * very next request. Prepared on each connection: parsing and analysing this statement cost PostgreSQL several
   * times what running it does.
   */
  @GenerateSql({ params: ['0000000000000000000000000000000000000000000000000000000000000000'] })
  async findByHashAndTouch(keyHash: string): Promise<KeyLookup | null> {
    const [row] = await preparedRows<{
      id: string;
      name: string;
      user_id: string;
      scopes: Scope[];
      revoked: boolean;
      owner_disabled: boolean;
    }>(this.keys.manager, KEY_LOOKUP_SQL, [keyHash]);
    if (!row) return null;
    const { id, name, user_id: userId, scopes, revoked, owner_disabled: ownerDisabled } = row;
    return { id, name, userId, scopes, revoked, ownerDisabled };
  }

  @GenerateSql({
    params: [
      {
        name: 'laptop',
        userId: '00000000-0000-4000-8000-000000000002',
        keyHash: '1'.repeat(64),
        keyHint: 'sm_live_ab…',
        scopes: ['read'],
      },
    ],
  })
  async insert(key: Pick<ApiKeyEntity, 'name' | 'userId' | 'keyHash' | 'keyHint' | 'scopes'>): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create(key));
  }

  /** Every key, or one user's (api_keys_user_active_name_idx leads with user_id), oldest first. */
  @GenerateSql(
    { name: 'everyone\u2019s', params: [] },
    { name: 'a user\u2019s', params: ['00000000-0000-0000-0000-000000000000'] },
  )
  async list(userId?: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: userId === undefined ? {} : { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** How many active keys a user holds (api_keys_user_active_name_idx leads with user_id). */
  @GenerateSql({ params: ['00000000-0000-4000-8000-000000000002'] })
  countActive(userId: string): Promise<number> {
    return this.keys.count({ where: { userId, revokedAt: IsNull() } });
  }

  @GenerateSql({ params: ['laptop'] })
  async activeIdsNamed(name: string): Promise<string[]> {
    const found = await this.keys.find({ where: { name, revokedAt: IsNull() }, select: { id: true } });
    return found.map((k) => k.id);
  }

  /** Revokes an active key by id, only if `userId` owns it when given; its id and name, or null if none matched. */
  @GenerateSql(
    { name: 'any key', params: ['00000000-0000-0000-0000-000000000000'] },
    { name: 'a user’s key', params: ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'] },
  )
  async revoke(id: string, userId?: string): Promise<{ id: string; name: string } | null> {
    if (!UUID.test(id)) return null;
    const [row] = await rows<{ id: string; name: string }>(
      this.keys.manager,
      `UPDATE api_keys SET revoked_at = now()
        WHERE revoked_at IS NULL AND id = $1::uuid AND ($2::text IS NULL OR user_id = $2)
        RETURNING id, name`,
      [id, userId ?? null],
    );
    return row ?? null;
  }
}
