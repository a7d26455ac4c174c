import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The suite's jest workers recycle themselves once a test file leaves their heap large: a worker that ends the
 * run with a heap of several hundred MB takes longer to tear down than the 500 ms jest allows, and is killed with
 * "a worker process has failed to exit gracefully". Four test files that each leave ~250 MB reachable run under
 * the project's limit on two workers: each must run in a fresh worker.
 */
describe('jest workers', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sm-jest-workers-'));
    for (const name of ['a', 'b', 'c', 'd']) {
      writeFileSync(
        join(dir, `${name}.spec.cjs`),
        `const os = require('node:os');
const fs = require('node:fs');
test('leaves a large heap behind', () => {
  // Core modules are shared by every test file a worker runs: what hangs off one outlives the file.
  (os.__keep ??= []).push(Array.from({ length: 5e6 }, (_, i) => ({ i })));
  fs.appendFileSync(process.env.PIDS_FILE, process.pid + '\\n');
});
`,
      );
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are recycled after a file that leaves their heap past the limit', async () => {
    const projectUrl = new URL('../jest.config.js', import.meta.url).href;
    const { default: project } = (await import(projectUrl)) as { default: { workerIdleMemoryLimit?: string } };
    const config = {
      rootDir: dir,
      testMatch: ['<rootDir>/*.spec.cjs'],
      transform: {},
      maxWorkers: 2,
      workerIdleMemoryLimit: project.workerIdleMemoryLimit,
    };
    const pids = join(dir, 'pids');
    writeFileSync(pids, '');
    const jest = fileURLToPath(new URL('../node_modules/jest/bin/jest.js', import.meta.url));
    const child = spawn(process.execPath, [jest, '--ci', '--config', JSON.stringify(config)], {
      env: { ...process.env, PIDS_FILE: pids, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect([code, output]).toEqual([0, expect.stringContaining('4 passed')]);
    const workers = readFileSync(pids, 'utf8').trim().split('\n');
    expect(workers).toHaveLength(4);
    expect(new Set(workers).size).toBe(4);
  }, 120_000);
});
