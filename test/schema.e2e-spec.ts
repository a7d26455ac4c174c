import { type TestApp, startTestApp } from './fixtures/test-app.js';

describe('database schema', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('matches the entities: synchronising after the migrations would change nothing', async () => {
    const pending = await t.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('has the five platforms from the migration', async () => {
    const platforms = await t.dataSource.query(`SELECT slug, name FROM platforms ORDER BY slug`);
    expect(platforms).toEqual([
      { slug: 'bugcrowd', name: 'Bugcrowd' },
      { slug: 'hackerone', name: 'HackerOne' },
      { slug: 'intigriti', name: 'Intigriti' },
      { slug: 'self', name: 'Self-managed' },
      { slug: 'yeswehack', name: 'YesWeHack' },
    ]);
  });

  it('leaves an empty hosts table unanalysed, so the first large scan is planned on its indexes', async () => {
    // Analysed while empty, hosts would be planned as empty: the first scan's check for names already recorded
    // would then read the growing table once per name.
    const [{ reltuples }] = await t.dataSource.query(`SELECT reltuples FROM pg_class WHERE relname = 'hosts'`);
    expect(reltuples).toBe(-1);
  });

  it('migrates all the way down and up again cleanly', async () => {
    for (let i = 0; i < t.dataSource.migrations.length; i++)
      await t.dataSource.undoLastMigration({ transaction: 'each' });
    const tables = await t.dataSource.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'hosts'`);
    expect(tables[0].n).toBe(0);
    await t.dataSource.runMigrations({ transaction: 'each' });
    const pending = await t.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries).toEqual([]);
  });
});
