import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UUID } from '../common/validation/param.pipes.js';
import { affected, rows } from '../database/sql.js';
import { UserEntity } from './entities/user.entity.js';
import { GenerateSql } from '../database/generate-sql.js';

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  created_at: Date;
  disabled_at: Date | null;
  active_keys: number;
}

@Injectable()
export class UsersRepository {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  /** The new user, or null when the address is taken (users_email_key). */
  @GenerateSql({ params: ['someone@example.com', 'Someone', 'scrypt$hash'] })
  async insert(email: string, name: string | null, passwordHash: string): Promise<UserEntity | null> {
    const [row] = await rows<{ id: string }>(
      this.users.manager,
      `INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING RETURNING id`,
      [email, name, passwordHash],
    );
    return row ? this.users.findOneByOrFail({ id: row.id }) : null;
  }

  @GenerateSql({ params: ['someone@example.com'] })
  findByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ email });
  }

  /** Null for an id that is no user's, UUID or not (key owners may be any id). */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000'] })
  findById(id: string): Promise<UserEntity | null> {
    return UUID.test(id) ? this.users.findOneBy({ id }) : Promise.resolve(null);
  }

  @GenerateSql()
  list(): Promise<UserRow[]> {
    return rows<UserRow>(
      this.users.manager,
      `SELECT u.id, u.email, u.name, u.created_at, u.disabled_at,
              (SELECT count(*)::int FROM api_keys k WHERE k.user_id = u.id::text AND k.revoked_at IS NULL) AS active_keys
         FROM users u ORDER BY u.created_at, u.email`,
    );
  }

  /** Disables the user, ends their sessions and revokes their keys, at once; the number of keys revoked. */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000'] })
  async disable(id: string): Promise<number> {
    return this.users.manager.transaction(async (m) => {
      await affected(m, `UPDATE users SET disabled_at = now() WHERE id = $1 AND disabled_at IS NULL`, [id]);
      await affected(m, `DELETE FROM sessions WHERE user_id = $1`, [id]);
      return affected(m, `UPDATE api_keys SET revoked_at = now() WHERE user_id = $1::text AND revoked_at IS NULL`, [
        id,
      ]);
    });
  }

  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000'] })
  async enable(id: string): Promise<void> {
    await affected(this.users.manager, `UPDATE users SET disabled_at = NULL WHERE id = $1`, [id]);
  }

  /** A new password signs the user out everywhere. */
  @GenerateSql({ params: ['00000000-0000-0000-0000-000000000000', 'scrypt$hash'] })
  async setPassword(id: string, passwordHash: string): Promise<void> {
    await this.users.manager.transaction(async (m) => {
      await affected(m, `UPDATE users SET password_hash = $2 WHERE id = $1`, [id, passwordHash]);
      await affected(m, `DELETE FROM sessions WHERE user_id = $1`, [id]);
    });
  }
}
