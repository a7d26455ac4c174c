import { Column, Entity, PrimaryColumn } from 'typeorm';

/** New hosts first seen in one UTC hour on one platform (a rollup of hosts.first_seen_at). */
@Entity('new_host_counts')
export class NewHostCountEntity {
  @PrimaryColumn('timestamptz', { primaryKeyConstraintName: 'new_host_counts_pkey' })
  hour: Date;

  @PrimaryColumn('text', { name: 'platform_slug', primaryKeyConstraintName: 'new_host_counts_pkey' })
  platformSlug: string;

  @Column('bigint')
  n: string;
}
