import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * custom_plan_guard(): true, at a cost PostgreSQL is told exceeds any plan's. A prepared statement whose best plan
 * differs with its parameters writes `($n::boolean OR custom_plan_guard())` with $n true (customPlanOnly in
 * src/database/sql.ts): a plan made for its parameters folds the condition to true and drops it, while the one
 * plan for every parameter (the generic plan PostgreSQL weighs after five runs) keeps the call and costs more
 * than any plan made for the parameters, so it is never chosen. PL/pgSQL, so that it is never inlined and folded.
 */
export class CustomPlanGuard1766300000000 implements MigrationInterface {
  name = 'CustomPlanGuard1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION custom_plan_guard() RETURNS boolean LANGUAGE plpgsql VOLATILE COST 1e15
                   AS $$ BEGIN RETURN true; END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION custom_plan_guard()`);
  }
}
