/**
 * Layer rules, run by `npm run lint`: the folders show the architecture, and imports only run down it.
 * A folder may import only folders of a lower tier (never one of its own tier, never one above): so no two
 * folders depend on each other, and a newcomer can read the tiers bottom-up. src/hosts is two rooms: its model
 * (what a host is and knows) and store (the one write path) sit low, its reads (the host endpoints) high.
 */
const TIERS = [
  ['config'],
  ['common'],
  ['database'],
  ['users', 'auth', 'metrics'],
  ['api-index', 'health', 'platforms'],
  ['domains', 'hosts/model'],
  ['hosts/store', 'events', 'export', 'stats', 'demo'],
  ['hosts', 'intel', 'notify', 'scope', 'stream'],
  ['discovery', 'import'],
  ['ct'],
  ['web'],
  ['app'],
  ['cli'],
];
const path = (unit) => (unit === 'hosts' ? '^src/hosts/(?!model/|store/)' : `^src/${unit}/`);

const tierRules = TIERS.flatMap((tier, i) =>
  tier.flatMap((unit) => {
    const sameOrAbove = TIERS.slice(i)
      .flat()
      .filter((u) => u !== unit);
    if (sameOrAbove.length === 0) return [];
    return {
      name: `tier-${unit.replace('/', '-')}`,
      severity: 'error',
      comment: `src/${unit} may import only lower tiers than its own (${TIERS.slice(0, i).flat().join(', ') || 'none'}).`,
      from: { path: path(unit) },
      to: {
        path: sameOrAbove
          .map(path)
          .map((p) => `(${p})`)
          .join('|'),
      },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means two files cannot be understood (or loaded under ESM) one without the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'known-folder',
      severity: 'error',
      comment:
        'Every file of src/ lives in a folder of a tier (.dependency-cruiser.cjs): a new folder is placed there.',
      from: { path: '^src/', pathNot: `^src/(${TIERS.flat().join('|')})/` },
      to: {},
    },
    {
      name: 'no-runtime-import-from-migrations',
      severity: 'error',
      comment: 'Migrations are frozen history; runtime code states what it needs itself. Only the runner lists them.',
      from: { path: '^src/', pathNot: '^src/database/migrations\\.ts$' },
      to: { path: '^migrations/' },
    },
    ...tierRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '\\.spec\\.ts$' },
  },
};
