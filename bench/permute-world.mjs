// The permute benchmark's world (#41): roots whose names follow the habits real zones show, drawn from public
// subdomain word lists, deterministic for a seed, split into what certificates would know (the seeds) and what only
// DNS holds (the hidden hosts). Written out as BIND zone files by zoneFiles().
import { readFileSync } from 'node:fs';

/** mulberry32: small, fast, the same stream for the same seed on every machine. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ENVIRONMENTS = ['dev', 'staging', 'stage', 'qa', 'uat', 'test', 'prod', 'int', 'preprod', 'sandbox', 'demo'];
const REGIONS = ['eu', 'us', 'us-east', 'us-west', 'eu-west', 'ap', 'ap-south', 'uk', 'de', 'fr'];

/** Service words: the service's own list and altdns's, letters only, short enough to be a label's part. */
function vocabulary() {
  const own = JSON.parse(readFileSync(new URL('../src/discovery/sources/default-wordlist.json', import.meta.url)));
  const altdns = readFileSync('/work/shared/peers/altdns/words.txt', 'utf8').split('\n');
  const env = new Set([...ENVIRONMENTS, ...REGIONS]);
  return [...new Set([...own, ...altdns].map((w) => w.trim().toLowerCase()))].filter(
    (w) => /^[a-z]{2,12}$/.test(w) && !env.has(w),
  );
}

/**
 * The roots and what each holds. `shape` says how big and how varied: services (words), environments, regions,
 * series lengths. One root has a wildcard sub-zone (`*.apps`), one is over 1,000 hosts.
 */
const ROOTS = [
  { name: 'acme.bench', services: 25, envs: 4, regions: 2, subzones: ['dev', 'corp'] },
  { name: 'globex.bench', services: 30, envs: 5, regions: 3, subzones: ['staging', 'eu'], wildcard: 'apps' },
  { name: 'initech.bench', services: 20, envs: 3, regions: 0, subzones: ['internal'] },
  { name: 'hooli.bench', services: 15, envs: 2, regions: 2, subzones: [] },
  { name: 'umbrella.bench', services: 70, envs: 7, regions: 5, subzones: ['dev', 'prod', 'us-east'], big: true },
];

export const WILDCARD_ADDRESS = '203.0.113.250';

/**
 * The world for `seed`: every root's hosts ({ host, root, zone, cname? , address }), the seeds (≈ 60 %) and the
 * hidden hosts (the rest). A sub-zone's hosts are seeded so that most sub-zones are revealed by at least one seed.
 */
export function generateWorld(seed = 41, seedShare = 0.6) {
  const rnd = random(seed);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const sample = (xs, n) => {
    const copy = [...xs];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, n);
  };
  const words = vocabulary();
  const roots = [];
  let addressN = 0;
  const address = () => {
    addressN++;
    return `10.${(addressN >> 16) & 255}.${(addressN >> 8) & 255}.${addressN & 255}`;
  };
  for (const spec of ROOTS) {
    const labels = new Set(); // relative to the root: `api-1`, `x.dev`
    const services = sample(words, spec.services);
    const envs = sample(ENVIRONMENTS, spec.envs);
    const regions = sample(REGIONS, spec.regions);
    const scale = spec.big ? 3 : 1;
    for (const s of services.slice(0, 8)) labels.add(s); // plain words: www, mail, vpn…
    labels.add('www');
    for (const s of services) {
      const style = rnd();
      // Numbered series: api-1..api-7 or web01..web12, sometimes per environment.
      if (style < 0.35) {
        const n = 2 + Math.floor(rnd() * 6 * scale);
        const padded = rnd() < 0.4;
        for (let i = 1; i <= n; i++) labels.add(padded ? `${s}${String(i).padStart(2, '0')}` : `${s}-${i}`);
      }
      // Environments, dash joined (api-staging) or dot joined (api.staging), sometimes numbered.
      if (style > 0.2) {
        for (const e of envs) {
          if (rnd() < 0.6) labels.add(rnd() < 0.75 ? `${s}-${e}` : `${e}-${s}`);
          if (spec.big && rnd() < 0.5)
            for (let i = 1; i <= 1 + Math.floor(rnd() * 4); i++) labels.add(`${s}-${e}-${i}`);
        }
      }
      // Regions: api-eu, api-us-east.
      for (const r of regions) if (rnd() < (spec.big ? 0.6 : 0.35)) labels.add(`${s}-${r}`);
      if (spec.big && rnd() < 0.5)
        for (const r of regions) for (const e of envs) if (rnd() < 0.3) labels.add(`${s}-${e}-${r}`);
    }
    // Nested sub-zones: x.dev.root, and one level deeper (x.eu.dev.root) now and then.
    for (const z of spec.subzones) {
      const inZone = sample(services, Math.min(services.length, (spec.big ? 25 : 8) + Math.floor(rnd() * 6)));
      for (const s of inZone) {
        labels.add(`${s}.${z}`);
        if (rnd() < 0.25) labels.add(`${s}-2.${z}`);
        if (spec.big && regions.length > 0 && rnd() < 0.2) labels.add(`${s}.${pick(regions)}.${z}`);
      }
    }
    if (spec.wildcard) for (const s of sample(services, 10)) labels.add(`${s}.${spec.wildcard}`);
    const hosts = [...labels].map((label) => ({
      host: `${label}.${spec.name}`,
      root: spec.name,
      zone: label.includes('.') ? `${label.slice(label.indexOf('.') + 1)}.${spec.name}` : spec.name,
    }));
    // Some hosts are aliases of another one in the root (a CNAME answered with the target's address).
    for (const h of hosts) h.address = address();
    for (const h of hosts) {
      if (rnd() < 0.08) {
        const target = pick(hosts);
        if (target !== h && !target.cname) h.cname = target.host;
      }
    }
    roots.push({
      name: spec.name,
      hosts,
      wildcard: spec.wildcard ? `${spec.wildcard}.${spec.name}` : null,
      big: !!spec.big,
    });
  }
  // The split: every host a seed with `seedShare`, but the first host of each sub-zone known in most of them, so
  // that "sub-zones a seed reveals" holds hidden hosts to find.
  const seeds = new Set();
  const hidden = new Set();
  for (const root of roots) {
    const firstOfZone = new Set();
    for (const h of root.hosts) {
      const first = h.zone !== root.name && !firstOfZone.has(h.zone);
      if (first) firstOfZone.add(h.zone);
      if (first ? rnd() < 0.85 : rnd() < seedShare) seeds.add(h.host);
      else hidden.add(h.host);
    }
  }
  return { seed, roots, seeds, hidden };
}

/** A zone file per root: SOA, NS, the hosts (A or CNAME), the wildcard. */
export function zoneFiles(world) {
  const files = {};
  for (const root of world.roots) {
    const lines = [
      '$TTL 300',
      `@ IN SOA ns1.${root.name}. hostmaster.${root.name}. 1 3600 600 86400 300`,
      `@ IN NS ns1.${root.name}.`,
      `ns1 IN A 127.0.0.1`,
    ];
    for (const h of root.hosts) {
      const rel = h.host.slice(0, -(root.name.length + 1));
      lines.push(h.cname ? `${rel} IN CNAME ${h.cname}.` : `${rel} IN A ${h.address}`);
    }
    if (root.wildcard) lines.push(`*.${root.wildcard.slice(0, -(root.name.length + 1))} IN A ${WILDCARD_ADDRESS}`);
    files[root.name] = `${lines.join('\n')}\n`;
  }
  return files;
}

/** How the world is made up, for the results file. */
export function describeWorld(world) {
  return world.roots.map((r) => ({
    root: r.name,
    hosts: r.hosts.length,
    seeds: r.hosts.filter((h) => world.seeds.has(h.host)).length,
    hidden: r.hosts.filter((h) => world.hidden.has(h.host)).length,
    cnames: r.hosts.filter((h) => h.cname).length,
    subzones: new Set(r.hosts.map((h) => h.zone).filter((z) => z !== r.name)).size,
    wildcard: r.wildcard,
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const world = generateWorld(Number(process.env.BENCH_SEED ?? 41));
  console.table(describeWorld(world));
}
