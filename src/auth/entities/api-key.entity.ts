import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

@Entity('api_keys')
@Unique('api_keys_key_hash_key', ['keyHash'])
@Index('api_keys_user_active_name_idx', ['userId', 'name'], { unique: true, where: 'revoked_at IS NULL' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('text', { name: 'user_id' })
  userId: string;

  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  @Column('text', { name: 'key_hash' })
  keyHash: string;

  /** The prefix and first characters, enough for an owner to tell keys apart, never enough to use one. */
  @Column('text', { name: 'key_hint' })
  keyHint: string;

  @Column('text', { array: true })
  scopes: Scope[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
