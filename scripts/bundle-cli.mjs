// Bundles the compiled operator CLI (dist/src/cli/main.js) and what it imports into one file, dist/cli.js.
// The CLI is started once per command: loaded file by file it opens some 2,800 files (about 1,400 modules) and
// spends most of its 0.8 s in the module loader; one file starts in about half that (docs/guide/cli.md).
// The service (dist/main.js) is not bundled: it starts once.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/src/cli/main.js'],
  outfile: 'dist/cli.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Class names stay as written: Nest, TypeORM and the logs name things by them.
  keepNames: true,
  external: [
    // PGlite loads its WebAssembly and data files from beside its own modules.
    '@electric-sql/*',
    // Loaded only if installed, and none is: pg's native binding, Nest's optional transports and platforms,
    // class-transformer's storage.
    'pg-native',
    '@nestjs/microservices',
    '@nestjs/websockets',
    '@nestjs/platform-express',
    'class-transformer/storage',
    // Loaded only on paths the CLI never takes: cosmiconfig's TypeScript configuration files, and the shell
    // completion spec of nest-commander's completion command.
    'typescript',
    'prettier',
  ],
  // The CommonJS packages inside an ES module bundle call require(): give them Node's.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
