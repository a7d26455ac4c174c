import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('platforms')
export class PlatformEntity {
  @PrimaryColumn('text')
  slug: string;

  @Column('text')
  name: string;

  @Column('text', { nullable: true })
  url: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
