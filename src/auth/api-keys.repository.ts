import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { rows } from '../database/sql.js';
import { ApiKeyEntity, type Scope } from './api-key.entity.js';

export interface KeyLookup {
  id: string;
  name: string;
  userId: string;
  scopes: Scope[];
  revoked: boolean;
}

/**
 * One round trip per request: the key by its hash (unique index api_keys_key_hash_key) and, at most once a
 * minute, a record of its use. Exported for the benchmark's floor server, which must run the same statement.
 */
export const KEY_LOOKUP_SQL = `WITH k AS (
         SELECT id, name, user_id, scopes, revoked_at, last_used_at FROM api_keys WHERE key_hash = $1
       ), touch AS (
         UPDATE api_keys SET last_used_at = now() FROM k
          WHERE api_keys.id = k.id AND k.revoked_at IS NULL
            AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')
       )
       SELECT id, name, user_id, scopes, revoked_at IS NOT NULL AS revoked FROM k`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /**
   * One round trip per request: finds the key by its hash (unique index api_keys_key_hash_key) and, at most
   * once a minute, records its use. Nothing is cached, so a revocation holds on the very next request.
   */
  async findByHashAndTouch(keyHash: string): Promise<KeyLookup | null> {
    const [row] = await rows<{ id: string; name: string; user_id: string; scopes: Scope[]; revoked: boolean }>(
      this.keys.manager,
      KEY_LOOKUP_SQL,
      [keyHash],
    );
    return row ? { id: row.id, name: row.name, userId: row.user_id, scopes: row.scopes, revoked: row.revoked } : null;
  }

  async insert(key: Pick<ApiKeyEntity, 'name' | 'userId' | 'keyHash' | 'keyHint' | 'scopes'>): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create(key));
  }

  async existsActiveName(name: string): Promise<boolean> {
    return this.keys.exists({ where: { name, revokedAt: IsNull() } });
  }

  async list(): Promise<ApiKeyEntity[]> {
    return this.keys.find({ order: { createdAt: 'ASC' } });
  }

  /** Revokes by id or by the name of an active key; the revoked key's id and name, or null if none matched. */
  async revoke(idOrName: string): Promise<{ id: string; name: string } | null> {
    const [row] = await rows<{ id: string; name: string }>(
      this.keys.manager,
      `UPDATE api_keys SET revoked_at = now()
        WHERE revoked_at IS NULL AND ${UUID.test(idOrName) ? 'id = $1::uuid' : 'name = $1'}
        RETURNING id, name`,
      [idOrName],
    );
    return row ?? null;
  }
}
