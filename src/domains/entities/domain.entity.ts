import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { PlatformEntity } from '../../platforms/entities/platform.entity.js';

export type ScanOutcome = 'running' | 'success' | 'error';

@Entity('domains')
@Unique('domains_domain_key', ['domain'])
@Check('domains_domain_lower_check', 'domain = lower(domain)')
@Index('domains_platform_idx', ['platformSlug', 'domain'])
@Index('domains_due_idx', ['nextScanAt'], { where: 'enabled' })
@Index('domains_queued_idx', ['queuedAt'], { where: 'queued_at IS NOT NULL' })
@Index('domains_permute_due_idx', ['permuteDueAt'], { where: 'permute_due_at IS NOT NULL AND enabled' })
@Index('domains_domain_trgm_idx', { synchronize: false })
// The sorts of GET /domains (migration ListSortIndexes), descending keys TypeORM cannot declare.
@Index('domains_total_idx', { synchronize: false })
@Index('domains_new_last_scan_idx', { synchronize: false })
@Index('domains_last_scanned_idx', { synchronize: false })
@Index('domains_platform_total_idx', { synchronize: false })
@Index('domains_platform_new_last_scan_idx', { synchronize: false })
@Index('domains_platform_last_scanned_idx', { synchronize: false })
@Index('domains_program_idx', ['platformSlug', 'program'], { where: 'program IS NOT NULL' })
export class DomainEntity {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column('text')
  domain: string;

  @Column('text', { name: 'platform_slug' })
  platformSlug: string;

  @ManyToOne(() => PlatformEntity, { nullable: false })
  @JoinColumn({ name: 'platform_slug', foreignKeyConstraintName: 'domains_platform_fkey' })
  platform?: Relation<PlatformEntity>;

  @Column('text', { nullable: true })
  program: string | null;

  /** The program's handle on its platform, when imported from a scope list. */
  @Column('text', { name: 'program_handle', nullable: true })
  programHandle: string | null;

  @Column('boolean', { default: true })
  enabled: boolean;

  @Column('integer', { name: 'total_subdomains', default: 0 })
  totalSubdomains: number;

  @Column('integer', { name: 'active_subdomains', default: 0 })
  activeSubdomains: number;

  @Column('integer', { name: 'new_subdomains_last_scan', default: 0 })
  newSubdomainsLastScan: number;

  @Column('timestamptz', { name: 'last_scanned_at', nullable: true })
  lastScannedAt: Date | null;

  @Column('text', { name: 'last_scan_status', nullable: true })
  lastScanStatus: ScanOutcome | null;

  @Column('timestamptz', { name: 'next_scan_at', default: () => 'now()' })
  nextScanAt: Date;

  @Column('timestamptz', { name: 'queued_at', nullable: true })
  queuedAt: Date | null;

  /** Since when hosts the CT follower found wait to seed an event scan of permutations (null: none waits). */
  @Column('timestamptz', { name: 'permute_due_at', nullable: true })
  permuteDueAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
