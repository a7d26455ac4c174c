import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { ScanEntity } from './scan.entity.js';

/** A name a running scan's sources found, staged until the scan commits it. */
@Entity('scan_names')
export class ScanNameEntity {
  @PrimaryColumn('uuid', { name: 'scan_id', primaryKeyConstraintName: 'scan_names_pkey' })
  scanId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'scan_names_pkey' })
  host: string;

  /** The sources of the scan that found the name, as bits (SOURCE_BITS). */
  @Column('smallint', { default: 0 })
  sources: number;

  @ManyToOne(() => ScanEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'scan_id', foreignKeyConstraintName: 'scan_names_scan_fkey' })
  scan?: Relation<ScanEntity>;
}
