import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { DomainEntity } from '../domains/domain.entity.js';

export const SCAN_TRIGGERS = ['cron', 'api', 'cli'] as const;
export type ScanTrigger = (typeof SCAN_TRIGGERS)[number];
export const SCAN_STATUSES = ['running', 'success', 'error'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

@Entity('scans')
@Check('scans_trigger_check', `trigger IN ('cron', 'api', 'cli')`)
@Check('scans_status_check', `status IN ('running', 'success', 'error')`)
@Index('scans_started_idx', { synchronize: false })
@Index('scans_domain_idx', { synchronize: false })
@Index('scans_one_running_idx', ['domainId'], { unique: true, where: `status = 'running'` })
export class ScanEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('integer', { name: 'domain_id' })
  domainId: number;

  @ManyToOne(() => DomainEntity, { nullable: false, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'domain_id', foreignKeyConstraintName: 'scans_domain_fkey' })
  domain?: Relation<DomainEntity>;

  @Column('text')
  trigger: ScanTrigger;

  @Column('text')
  status: ScanStatus;

  @Column('integer', { name: 'found_count', default: 0 })
  foundCount: number;

  @Column('integer', { name: 'new_count', default: 0 })
  newCount: number;

  @Column('integer', { name: 'reactivated_count', default: 0 })
  reactivatedCount: number;

  @Column('integer', { name: 'inactive_count', default: 0 })
  inactiveCount: number;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('timestamptz', { name: 'started_at', default: () => 'now()' })
  startedAt: Date;

  @Column('timestamptz', { name: 'finished_at', nullable: true })
  finishedAt: Date | null;
}
