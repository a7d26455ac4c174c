import { candidatesFor } from './naming.js';

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
    expect(found).toEqual(expect.arrayContaining(['api-dev-1.example.com', 'web-staging-1.example.com']));
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
  });
});
