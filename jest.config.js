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
  // Each test file loads the whole app graph into a fresh VM context, and the heap of a worker grows with every
  // file (to 300–400 MB, with WASM memory besides on the embedded database). Tearing down such a process takes
  // 400–800 ms, past the 500 ms jest-worker allows after the run before it kills the worker with "a worker process
  // has failed to exit gracefully". A worker whose heap passes this limit after a file is recycled, so none ends
  // the run holding more than one file's heap (test/jest-workers.e2e-spec.ts).
  workerIdleMemoryLimit: '200MB',
};
