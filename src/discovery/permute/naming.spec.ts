import { candidatesFor, REGIONS } from './naming.js';

const ROOT = 'example.com';
const hostsOf = (known: string[], depth = 2, limit = 10_000, skip?: Set<string>) =>
  candidatesFor(ROOT, known, { depth, limit, skip }).map((c) => c.host);

describe('permute naming', () => {
  it('continues a numbered series, fills its gaps, and keeps its width', () => {
    const found = hostsOf(['api-1.example.com', 'api-2.example.com', 'api-4.example.com', 'web01.example.com']);
    expect(found).toEqual(expect.arrayContaining(['api-3.example.com', 'api-5.example.com', 'web02.example.com']));
    expect(found).not.toContain('web2.example.com');
    expect(found).not.toContain('api-1.example.com'); // known
  });

  it('tries each environment word for another, and swaps the root’s frequent words into dash positions', () => {
    const found = hostsOf(['api-staging-1.example.com', 'web-staging-2.example.com', 'api-prod-2.example.com']);
    // The example of the issue: api-staging-1, web-staging-2 and api-prod-2 make api-staging-2 likely.
    expect(found).toEqual(expect.arrayContaining(['api-staging-2.example.com', 'web-prod-2.example.com']));
    expect(found).toEqual(expect.arrayContaining(['api-prod-1.example.com', 'web-staging-1.example.com']));
    // Two environments shown: one the root never shows is not likely enough.
    expect(found).not.toContain('api-dev-1.example.com');
  });

  it('brute-forces the sub-zones known hosts reveal, to the depth it is given', () => {
    const known = ['www.example.com', 'api.example.com', 'a.dev.example.com', 'x.b.eu.example.com'];
    const found = hostsOf(known, 1);
    expect(found).toEqual(expect.arrayContaining(['api.dev.example.com', 'www.dev.example.com', 'api.eu.example.com']));
    expect(found).not.toContain('api.b.eu.example.com'); // two levels down
    expect(hostsOf(known, 2)).toContain('api.b.eu.example.com');
  });

  it('ranks, bounds and skips: the best first, at most the limit, none of the negative cache', () => {
    const known = ['api-1.example.com', 'api-2.example.com', 'dev.example.com', 'shop-dev.example.com'];
    const all = candidatesFor(ROOT, known, { depth: 2, limit: 10_000 });
    const scores = all.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(hostsOf(known, 2, 3)).toEqual(all.slice(0, 3).map((c) => c.host));
    expect(hostsOf(known, 2, 10_000, new Set(['api-3.example.com']))).not.toContain('api-3.example.com');
    // The same names give the same candidates in the same order.
    expect(
      candidatesFor(ROOT, [...known].reverse(), { depth: 2, limit: 10_000 })
        .map((c) => c.host)
        .sort(),
    ).toEqual(all.map((c) => c.host).sort());
  });

  it('spends on the patterns that have hit on this root first', () => {
    const known = ['api-1.example.com', 'api-2.example.com', 'shop-dev.example.com', 'mail.example.com'];
    const first = (yields: Parameters<typeof candidatesFor>[2]['yields']) =>
      candidatesFor(ROOT, known, { depth: 2, limit: 1, yields })[0].pattern;
    expect(first({ number: { tried: 200, hits: 0 }, environment: { tried: 20, hits: 15 } })).toBe('environment');
    expect(first({ number: { tried: 20, hits: 15 }, environment: { tried: 200, hits: 0 } })).toBe('number');
  });

  it('reads hostile names without harm: wildcards, the root itself, names of another root, very long labels', () => {
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.example.com`;
    const found = hostsOf(['*.example.com', 'example.com', 'api.other.net', long, 'x-1.example.com']);
    expect(found).toContain('x-2.example.com');
    expect(found.every((h) => h.endsWith('.example.com') && h.length <= 253 && !h.includes('*'))).toBe(true);
    // A service of 60 characters in the form `#-staging`: a first label past 63 is no name.
    const wide = hostsOf([`${'w'.repeat(60)}.example.com`, 'api-staging.example.com', 'web-staging.example.com']);
    expect(wide).toContain('web.example.com');
    expect(wide.every((h) => h.indexOf('.') <= 63)).toBe(true);
  });

  it('seeds: only what the new hosts suggest, learned from every known name', () => {
    const known = [
      'api-1.example.com',
      'api-2.example.com',
      'web-dev.example.com',
      'x.eu.example.com',
      'mail.example.com',
    ];
    const seeded = candidatesFor(ROOT, known, {
      depth: 2,
      limit: 10_000,
      seeds: new Set(['shop-dev.example.com', 'api-3.example.com']),
    }).map((c) => c.host);
    // The series the seed joins, and the seed's environment swapped; web-dev's and the eu zone's are not made.
    expect(seeded).toEqual(expect.arrayContaining(['api-4.example.com', 'shop-prod.example.com']));
    expect(seeded).not.toContain('web-prod.example.com');
    expect(seeded.some((h) => h.endsWith('.eu.example.com'))).toBe(false);
    expect(seeded).not.toContain('api-3.example.com'); // the seed itself is known
    // A seed in a new zone reveals it.
    const zoned = candidatesFor(ROOT, known, { depth: 2, limit: 10_000, seeds: new Set(['a.qa.example.com']) });
    expect(zoned.map((c) => c.host)).toContain('api.qa.example.com');
  });

  it('reads a two-part region as one token and tries the root’s other regions in its place', () => {
    const known = ['api-us-east.example.com', 'web-us-east.example.com', 'web-eu.example.com'];
    const all = candidatesFor(ROOT, known, { depth: 2, limit: 10_000 });
    expect(REGIONS).toContain('us-east');
    expect(all.find((c) => c.host === 'api-eu.example.com')?.pattern).toBe('region');
    // `us-east` split in two would make `api-us-eu` and `web-eu-east`.
    expect(all.map((c) => c.host).filter((h) => h.includes('-eu-') || h.includes('us-eu'))).toEqual([]);
  });

  it('gives each revealed zone the services of the root and of its sibling zones, and `x-2` where `x` is', () => {
    const known = [
      'a.dev.example.com',
      'b.dev.example.com',
      'b-2.dev.example.com',
      'a.qa.example.com',
      'c.example.com',
    ];
    const found = hostsOf(known);
    expect(found).toEqual(expect.arrayContaining(['b.qa.example.com', 'c.qa.example.com', 'c.dev.example.com']));
    expect(found).toContain('a-2.dev.example.com'); // b-2 beside b
    expect(found).not.toContain('b-1.dev.example.com'); // b itself stands for the first of b's series
  });

  it('pads a series only as its zero-led numbers show', () => {
    expect(hostsOf(['web10.example.com', 'web12.example.com'])).toContain('web11.example.com');
    expect(hostsOf(['web10.example.com', 'web12.example.com'])).not.toContain('web09.example.com');
    expect(hostsOf(['web01.example.com', 'web10.example.com', 'web12.example.com'])).toContain('web09.example.com');
  });

  it('tries environment words a root never shows only while it shows few', () => {
    expect(hostsOf(['api-dev.example.com', 'web-dev.example.com'])).toContain('api-staging.example.com');
    const many = ['dev', 'qa', 'uat', 'prod', 'stage'].map((e) => `api-${e}.example.com`);
    const found = hostsOf([...many, 'web-dev.example.com']);
    expect(found).toContain('web-qa.example.com'); // an environment the root shows
    expect(found).not.toContain('api-staging.example.com');
  });

  it('makes nothing unlikely: a pattern that keeps missing on the root is no longer tried', () => {
    const known = ['api-dev.example.com', 'web-dev.example.com', 'web-prod.example.com', 'api-1.example.com'];
    const patterns = (yields?: Parameters<typeof candidatesFor>[2]['yields']) =>
      new Set(candidatesFor(ROOT, known, { depth: 2, limit: 10_000, yields }).map((c) => c.pattern));
    expect(patterns()).toContain('environment');
    const missed = patterns({ environment: { tried: 2000, hits: 0 }, number: { tried: 20, hits: 10 } });
    expect(missed).not.toContain('environment');
    expect(missed).toContain('number');
    // A lone name suggests little.
    expect(hostsOf(['mail.example.com']).length).toBeLessThanOrEqual(5);
  });

  it('makes no series of ids, nor the gaps of a series too sparse to trust', () => {
    const made = (known: string[]) => candidatesFor(ROOT, known, { depth: 2, limit: 10_000 }).map((c) => c.host);
    // A build number, a date, an address: no series of them, whatever their numbers.
    const ids = made(['build-20261201.example.com', 'api-9007199254740993.example.com', 'ip-3232235777.example.com']);
    expect(ids.filter((h) => /-\d+\.example\.com$/.test(h))).toEqual([]);
    // Two numbers far apart: nothing between them is likely enough to ask.
    const sparse = made(['node-7.example.com', 'node-50000.example.com']);
    expect(sparse).not.toContain('node-1.example.com');
    expect(sparse).not.toContain('node-8.example.com');
  });
});
