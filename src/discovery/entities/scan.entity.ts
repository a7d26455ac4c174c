import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { DomainEntity } from '../../domains/entities/domain.entity.js';

export const SCAN_TRIGGERS = ['cron', 'api', 'cli', 'event'] as const;
export type ScanTrigger = (typeof SCAN_TRIGGERS)[number];
export const SCAN_STATUSES = ['running', 'success', 'error'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

@Entity('scans')
@Check('scans_trigger_check', `trigger IN ('cron', 'api', 'cli', 'event')`)
@Check('scans_status_check', `status IN ('running', 'success', 'error')`)
@Index('scans_started_idx', { synchronize: false })
@Index('scans_domain_idx', { synchronize: false })
@Index('scans_status_started_idx', { synchronize: false })
@Index('scans_one_running_idx', ['domainId'], { unique: true, where: `status = 'running'` })
@Index('scans_claimable_idx', { synchronize: false })
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

  @Column('integer', { name: 'dropped_count', default: 0 })
  droppedCount: number;

  @Column('text', { nullable: true })
  error: string | null;

  /** Where the next slice of the scan starts; see ScanProgress. */
  @Column('jsonb', { default: () => "'{}'" })
  progress: Record<string, unknown>;

  /** What each source that keeps counters did (the permute source: candidates, queries, hits). */
  @Column('jsonb', { name: 'source_stats', default: () => "'{}'" })
  sourceStats: Record<string, Record<string, number>>;

  /** An event scan's seeds: the root's hosts first seen since then (null for every other scan). */
  @Column('timestamptz', { name: 'seeds_from', nullable: true })
  seedsFrom: Date | null;

  /** Until when the worker in worker_id holds the scan; null while it waits for its next slice. */
  @Column('timestamptz', { name: 'lease_until', nullable: true })
  leaseUntil: Date | null;

  @Column('text', { name: 'worker_id', nullable: true })
  workerId: string | null;

  /** How often the scan was taken up again after its worker died. */
  @Column('integer', { default: 0 })
  attempts: number;

  @Column('timestamptz', { name: 'started_at', default: () => 'now()' })
  startedAt: Date;

  @Column('timestamptz', { name: 'finished_at', nullable: true })
  finishedAt: Date | null;
}
