import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The program's handle on its platform, kept beside its name when domains are imported from scope lists. */
export class ProgramHandle1764100000000 implements MigrationInterface {
  name = 'ProgramHandle1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domains ADD COLUMN program_handle text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE domains DROP COLUMN program_handle`);
  }
}
