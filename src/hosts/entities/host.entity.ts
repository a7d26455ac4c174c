import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation, Unique } from 'typeorm';
import { DomainEntity } from '../../domains/entities/domain.entity.js';

// The descending feed indexes and the trigram index are written in the migration; TypeORM cannot express them.
@Entity('hosts')
@Unique('hosts_domain_host_key', ['domainId', 'host'])
@Index('hosts_new_feed_idx', { synchronize: false })
@Index('hosts_domain_feed_idx', { synchronize: false })
@Index('hosts_domain_host_trgm_idx', { synchronize: false })
@Index('hosts_domain_inactive_idx', { synchronize: false })
export class HostEntity {
  /** bigint: the driver returns it as a string, which is also how the API exposes it. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column('integer', { name: 'domain_id' })
  domainId: number;

  @ManyToOne(() => DomainEntity, { nullable: false, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'domain_id', foreignKeyConstraintName: 'hosts_domain_fkey' })
  domain?: Relation<DomainEntity>;

  @Column('text')
  host: string;

  @Column('timestamptz', { name: 'first_seen_at', default: () => 'now()' })
  firstSeenAt: Date;

  @Column('timestamptz', { name: 'last_seen_at', default: () => 'now()' })
  lastSeenAt: Date;

  @Column('boolean', { name: 'is_active', default: true })
  isActive: boolean;

  /** The sources that have found the host, as bits (SOURCE_BITS); the API shows host_sources(sources). */
  @Column('smallint', { default: 0 })
  sources: number;
}
