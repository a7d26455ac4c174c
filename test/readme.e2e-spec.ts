import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { envVarDocs } from '../src/config/env-var.decorator.js';
import { Environment } from '../src/config/environment.js';

describe('README', () => {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  const section = readme.split('## Configuration')[1].split('\n## ')[0];
  const documented = [...section.matchAll(/^\| `([A-Z0-9_]+)`\s*\| (.+?)\s*\|/gm)].map((m) => ({
    name: m[1],
    default: m[2],
  }));

  it('documents exactly the variables the service reads', () => {
    const names = envVarDocs(Environment).map((d) => d.name);
    expect(documented.map((d) => d.name).sort()).toEqual([...names].sort());
  });

  it('gives each variable the default the code has', () => {
    for (const doc of envVarDocs(Environment)) {
      const row = documented.find((d) => d.name === doc.name);
      expect([doc.name, row?.default.replaceAll('`', '')]).toEqual([doc.name, doc.default]);
    }
  });

  it('states the two set-up commands', () => {
    expect(readme).toContain('`npm ci && npm start`');
    expect(readme).toContain('`npm ci && npm test`');
  });
});
