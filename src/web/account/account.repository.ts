import type { Scope } from '../../auth/entities/api-key.entity.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { affected, rows } from '../../database/sql.js';
import { GenerateSql } from '../../database/generate-sql.js';

export interface SessionUser {
  user_id: string;
  email: string;
  name: string | null;
  csrf_token: string;
  /** What the user's keys may do: the scopes of their active keys together (none without an active key). */
  scopes: Scope[];
}

export interface FailureRow {
  key: string;
  failures: number;
  /** Seconds since the last failure. */
  age: number;
}

/** Failures older than this are forgotten: the count starts again. */
export const FAILURE_MEMORY = '1 hour';

/** Sessions and failed sign-ins, in the database so that every API process sees the same. */
@Injectable()
export class AccountRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: ['1'.repeat(64), '00000000-0000-4000-8000-000000000002', 'csrf', 7] })
  async createSession(idHash: string, userId: string, csrf: string, days: number): Promise<void> {
    await affected(
      this.db,
      `INSERT INTO sessions (id_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, now() + make_interval(days => $4))`,
      [idHash, userId, csrf, days],
    );
  }

  /** The session's user, if the session is current and the user enabled (sessions primary key). */
  @GenerateSql({ params: ['1'.repeat(64)] })
  async sessionUser(idHash: string): Promise<SessionUser | undefined> {
    const [row] = await rows<SessionUser>(
      this.db,
      `SELECT s.user_id, u.email, u.name, s.csrf_token,
              ARRAY(SELECT DISTINCT scope FROM api_keys k, unnest(k.scopes) AS scope
                     WHERE k.user_id = s.user_id::text AND k.revoked_at IS NULL ORDER BY scope) AS scopes
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.id_hash = $1 AND s.expires_at > now() AND u.disabled_at IS NULL`,
      [idHash],
    );
    return row;
  }

  /** Ends a session, and sweeps expired ones while at it. */
  @GenerateSql({ params: ['1'.repeat(64)] })
  async endSession(idHash: string): Promise<void> {
    await affected(this.db, `DELETE FROM sessions WHERE id_hash = $1 OR expires_at <= now()`, [idHash]);
  }

  @GenerateSql({ params: [['email:owner@example.com', 'client:127.0.0.1']] })
  async recentFailures(keys: string[]): Promise<FailureRow[]> {
    return rows<FailureRow>(
      this.db,
      `SELECT key, failures, extract(epoch FROM now() - last_failed_at)::float8 AS age FROM sign_in_failures
        WHERE key = ANY($1) AND last_failed_at > now() - interval '${FAILURE_MEMORY}'`,
      [keys],
    );
  }

  /**
   * Counts an attempt as a failure before its password is checked, one row lock at a time, and returns each
   * key's count including it: concurrent attempts each get their own number, so a burst cannot all slip in under
   * the threshold. Forgotten failures are swept on the way (sign_in_failures_last_failed_idx).
   */
  @GenerateSql({ params: [['email:owner@example.com', 'client:127.0.0.1']] })
  async reserveAttempt(keys: string[]): Promise<Map<string, number>> {
    await affected(
      this.db,
      `DELETE FROM sign_in_failures WHERE last_failed_at <= now() - interval '${FAILURE_MEMORY}'`,
    );
    const counted = await rows<{ key: string; failures: number }>(
      this.db,
      `INSERT INTO sign_in_failures AS f (key, failures, last_failed_at) SELECT unnest($1::text[]), 1, now()
       ON CONFLICT (key) DO UPDATE SET last_failed_at = now(),
         failures = CASE WHEN f.last_failed_at > now() - interval '${FAILURE_MEMORY}' THEN f.failures + 1 ELSE 1 END
       RETURNING key, failures`,
      [keys],
    );
    return new Map(counted.map((c) => [c.key, c.failures]));
  }

  /** A successful sign-in: the address starts afresh, and the client's reserved attempt is given back. */
  @GenerateSql({ params: ['email:owner@example.com', 'client:127.0.0.1'] })
  async attemptSucceeded(emailKey: string, clientKey: string): Promise<void> {
    await affected(this.db, `DELETE FROM sign_in_failures WHERE key = $1`, [emailKey]);
    await affected(this.db, `UPDATE sign_in_failures SET failures = failures - 1 WHERE key = $1 AND failures > 0`, [
      clientKey,
    ]);
  }
}
