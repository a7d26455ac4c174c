import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { envVarDocs } from '../src/config/env-var.decorator.js';
import { Environment } from '../src/config/environment.js';

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

describe('README and the configuration page', () => {
  const readme = read('../README.md');
  // Every row of every table on the page, whatever section (wing) it sits under.
  const configuration = read('../docs/operations/configuration.md');
  const documented = [...configuration.matchAll(/^\| `([A-Z0-9_]+)`\s*\| (.+?)\s*\|/gm)].map((m) => ({
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
