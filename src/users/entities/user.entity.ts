import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';

/** Someone who owns API keys and manages them on the account page. */
@Entity('users')
@Unique('users_email_key', ['email'])
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Stored in lower case: one account per address however it is typed. */
  @Column('text')
  email: string;

  @Column('text', { nullable: true })
  name: string | null;

  /** scrypt, with its parameters and salt (see password.ts); never the password. */
  @Column('text', { name: 'password_hash' })
  passwordHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'disabled_at', nullable: true })
  disabledAt: Date | null;
}

/** A signed-in browser: the cookie holds a random id, the table its SHA-256 and the CSRF token of its forms. */
@Entity('sessions')
@Index('sessions_user_idx', ['userId'])
export class SessionEntity {
  @PrimaryColumn('text', { name: 'id_hash' })
  idHash: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('text', { name: 'csrf_token' })
  csrfToken: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'sessions_user_fkey' })
  user?: UserEntity;
}

/** Failed sign-ins per email address and per client address, which slow the next attempts (see SignInThrottle). */
@Entity('sign_in_failures')
@Index('sign_in_failures_last_failed_idx', ['lastFailedAt'])
export class SignInFailureEntity {
  @PrimaryColumn('text')
  key: string;

  @Column('integer')
  failures: number;

  @Column('timestamptz', { name: 'last_failed_at' })
  lastFailedAt: Date;
}
