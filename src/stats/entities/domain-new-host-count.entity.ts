import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DomainEntity } from '../../domains/entities/domain.entity.js';

/** New hosts first seen in one UTC hour under one domain (a rollup of hosts.first_seen_at, for top domains). */
@Entity('domain_new_host_counts')
@Index('domain_new_host_counts_hour_idx', { synchronize: false })
export class DomainNewHostCountEntity {
  @PrimaryColumn('integer', { name: 'domain_id', primaryKeyConstraintName: 'domain_new_host_counts_pkey' })
  domainId: number;

  @PrimaryColumn('timestamptz', { primaryKeyConstraintName: 'domain_new_host_counts_pkey' })
  hour: Date;

  @Column('bigint')
  n: string;

  @ManyToOne(() => DomainEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'domain_id', foreignKeyConstraintName: 'domain_new_host_counts_domain_fkey' })
  domain?: DomainEntity;
}

/** New hosts first seen in one UTC day under one domain (the day rollup top domains reads for long windows). */
@Entity('domain_new_host_days')
@Index('domain_new_host_days_day_idx', { synchronize: false })
export class DomainNewHostDayEntity {
  @PrimaryColumn('integer', { name: 'domain_id', primaryKeyConstraintName: 'domain_new_host_days_pkey' })
  domainId: number;

  /** The start of the UTC day. */
  @PrimaryColumn('timestamptz', { primaryKeyConstraintName: 'domain_new_host_days_pkey' })
  day: Date;

  @Column('bigint')
  n: string;

  @ManyToOne(() => DomainEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'domain_id', foreignKeyConstraintName: 'domain_new_host_days_domain_fkey' })
  domain?: DomainEntity;
}
