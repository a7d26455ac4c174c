// Nest 12 is ESM-only: jest runs with --experimental-vm-modules and ts-jest emits ES modules.
// isolatedModules (tsconfig.spec.json) transpiles each file alone; `npm run check` does the type checking.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.spec.json' }] },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
