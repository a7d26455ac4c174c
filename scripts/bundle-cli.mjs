// Bundles the compiled operator CLI (dist/src/cli/main.js) and what it imports into one file, dist/cli.js.
// The CLI is started once per command: loaded file by file it opens some 2,800 files (about 1,400 modules) and
// spends most of its 1.3 s in the module loader; one file starts in about half that (docs/guide/cli.md).
// The service (dist/main.js) is not bundled: it starts once.
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

// @nestjs/typeorm looks up TypeORM 0.3's Connection and AbstractRepository through a require() made with
// createRequire, which esbuild cannot follow: in the bundle it loaded a second TypeORM from node_modules, some 300
// files, at every start, to find both undefined (TypeORM 1 has neither). Given as a plain require(), it is the
// bundle's own TypeORM.
const ownTypeorm = {
  name: 'own-typeorm',
  setup(b) {
    b.onLoad({ filter: /@nestjs[\\/]typeorm[\\/]dist[\\/]common[\\/]typeorm-compat\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const made = 'const require = createRequire(import.meta.url);';
      if (!source.includes(made)) throw new Error(`${args.path} no longer makes its own require(): look again`);
      return {
        contents: source.replace(made, '').replace("import { createRequire } from 'node:module';", ''),
        loader: 'js',
      };
    });
  },
};

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
  plugins: [ownTypeorm],
  logLevel: 'warning',
});
