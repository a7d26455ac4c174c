// The permute benchmark's peers: dnsgen and altdns (../shared/peers) writing candidates from the same seeds, and
// their candidates resolved and counted as the service's are (bench/permute.mjs).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { queriesAt, resolveAll } from './permute-dns.mjs';

const REPO = new URL('..', import.meta.url).pathname;
const PEERS = join(REPO, '..', 'shared', 'peers');

/**
 * A peer's candidates resolved at the server, at most `cap` of them (an even stride through the list): the peers
 * make millions on the big root, more than this machine resolves in a run (≈ 6,000 a second). The rest are judged
 * against the zones' contents (a name answers iff it is a host or under the wildcard zone, which is what BIND
 * answers), and their queries counted as the sent part's queries a name (one, measured).
 */
export async function resolvePeer(named, world, names, cap) {
  const step = Math.max(1, Math.ceil(names.length / cap));
  const sent = names.filter((_, i) => i % step === 0);
  const rest = names.filter((_, i) => i % step !== 0);
  const before = await queriesAt(named);
  const answered = await resolveAll(named, sent);
  const atServer = (await queriesAt(named)) - before;
  const all = new Set(world.roots.flatMap((r) => r.hosts.map((h) => h.host)));
  const wildcards = world.roots.filter((r) => r.wildcard).map((r) => `.${r.wildcard}`);
  const judged = rest.filter((n) => all.has(n) || wildcards.some((w) => n.endsWith(w)));
  // What the sent part tells of the judging: every name the zones hold answered, and nothing else.
  const agree = answered.length === sent.filter((n) => all.has(n) || wildcards.some((w) => n.endsWith(w))).length;
  return {
    answered: [...answered, ...judged],
    queries: Math.round(atServer * (names.length / sent.length)),
    resolution: {
      sent: sent.length,
      queries_at_server: atServer,
      judged_from_zones: rest.length,
      judging_agrees: agree,
    },
  };
}

/** dnsgen's candidates for a root's seeds (its default word list and options), the seeds left out. */
export function dnsgenCandidates(dir, seeds) {
  const file = join(dir, 'dnsgen-in.txt');
  writeFileSync(file, seeds.join('\n'));
  const out = execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      'import sys; from dnsgen import dnsgen; [print(n) for n in dnsgen.generate(open(sys.argv[1]).read().split())]',
      file,
    ],
    { env: { ...process.env, PYTHONPATH: PEERS }, encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  const known = new Set(seeds);
  return [...new Set(out.split('\n').filter((n) => n && !known.has(n)))];
}

/** altdns's candidates for a root's seeds (its own words.txt, no number suffixes), the seeds left out. */
export function altdnsCandidates(dir, seeds) {
  const input = join(dir, 'altdns-in.txt');
  const output = join(dir, 'altdns-out.txt');
  writeFileSync(input, `${seeds.join('\n')}\n`);
  rmSync(output, { force: true });
  execFileSync(
    '/usr/bin/python3',
    [join(PEERS, 'altdns/altdns_main.py'), '-i', input, '-o', output, '-w', join(PEERS, 'altdns/words.txt')],
    { env: { ...process.env, PYTHONPATH: PEERS }, stdio: 'ignore', cwd: dir },
  );
  const known = new Set(seeds);
  return [
    ...new Set(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter((n) => n && !known.has(n)),
    ),
  ];
}

/**
 * What a peer finds for the queries permute sent: of each root, its first candidates (in the order it writes them,
 * as a user with a query budget would take them), as many as permute's queries on the root, judged against the
 * zones (what BIND answers, as resolvePeer checks on the part it sends).
 */
export function atEqualQueries(world, perRoot, permuteRoots) {
  let queries = 0;
  let found = 0;
  world.roots.forEach((root, i) => {
    const n = permuteRoots[root.name]?.queries ?? 0;
    const taken = perRoot[i].slice(0, n);
    queries += taken.length;
    found += taken.filter((h) => world.hidden.has(h)).length;
  });
  return { queries, hidden_found: found };
}
