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

/**
 * New hosts first seen in one UTC minute on one platform (a rollup of hosts.first_seen_at): windows that end
 * now, such as the platforms' last 24 hours, start inside an hour, and add up its whole minutes here instead of
 * reading that hour's hosts.
 */
@Entity('new_host_minutes')
export class NewHostMinuteEntity {
  @PrimaryColumn('timestamptz', { primaryKeyConstraintName: 'new_host_minutes_pkey' })
  minute: Date;

  @PrimaryColumn('text', { name: 'platform_slug', primaryKeyConstraintName: 'new_host_minutes_pkey' })
  platformSlug: string;

  @Column('bigint')
  n: string;
}
