// Writes docs/benchmarks.md: the text of bench/benchmarks.template.md with the figures of bench/results/*.json, each
// benchmark's latest against its targets. `npm run bench` ends with it; edit the template or bench/report/*.mjs (a
// file for each benchmark's section; the targets table is filled in the order they are imported), never the page.
// Usage: node bench/report.mjs           writes docs/benchmarks.md and prints the targets
//        node bench/report.mjs --check   exits 1 when docs/benchmarks.md is not what the results make (npm run lint)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { files, table, targets } from './report/common.mjs';
import { apiSection, growthSection } from './report/api.mjs';
import { conditionalSection } from './report/conditional.mjs';
import { exportSection } from './report/export.mjs';
import { persistenceSection } from './report/persistence.mjs';
import { soakSection } from './report/soak.mjs';
import { ctSection, spreadSection } from './report/ct.mjs';
import { knowledgeSection } from './report/knowledge.mjs';
import { seedSection } from './report/seed.mjs';
import { permuteSection } from './report/permute.mjs';
import { costSection, hidingSection, leanSection } from './report/lean.mjs';
import { rulesSection } from './report/rules.mjs';
import { dashboardSection } from './report/dashboard.mjs';
import { abSection, cpuSection } from './report/tracing.mjs';

const PAGE = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

// ---------------------------------------------------------------------------------------------------------------
const machines = [
  ...new Set(
    [...files.values()].map(
      (r) => r.machine && `${r.machine.cpus} cores, ${r.machine.memory_gib} GiB, Node ${r.machine.node}`,
    ),
  ),
].filter(Boolean);
const sections = {
  machines:
    `Machine${machines.length === 1 ? '' : 's'} of these results: ${machines.join('; ')}; shared and noisy, as\n` +
    'autocannon, PostgreSQL and the service share the cores.',
  targets: table(['target', 'latest', 'result', 'section'], targets),
  api: apiSection,
  growth: growthSection,
  conditional: conditionalSection,
  export: exportSection,
  persistence: persistenceSection,
  soak: soakSection,
  ct: ctSection,
  spread: spreadSection,
  knowledge: knowledgeSection,
  lean: leanSection,
  permute: permuteSection,
  seed: seedSection,
  cost: costSection,
  hiding: hidingSection,
  rules: rulesSection,
  dashboard: dashboardSection,
  ab: abSection,
  cpu: cpuSection,
};
const template = readFileSync(new URL('./benchmarks.template.md', import.meta.url), 'utf8');
const page = template.replace(/^<!--[\s\S]*?-->\n+/, '').replace(/\{\{(\w+)\}\}/g, (_, name) => {
  if (!(name in sections)) throw new Error(`benchmarks.template.md: no figures for {{${name}}}`);
  return [sections[name]].flat().join('\n').trim();
});

const formatted = await prettier.format(page, { ...(await prettier.resolveConfig(PAGE)), filepath: PAGE });
if (process.argv.includes('--check')) {
  if (!existsSync(PAGE) || readFileSync(PAGE, 'utf8') !== formatted) {
    console.error('docs/benchmarks.md is not what bench/results/*.json make: run `node bench/report.mjs`.');
    process.exit(1);
  }
} else {
  writeFileSync(PAGE, formatted);
  console.log(table(['target', 'latest', 'result', 'section'], targets));
  console.log('\nwrote docs/benchmarks.md');
}
