import { aroundSeeds } from './permute.source.js';

describe('what an event scan learns from', () => {
  it('is every name of a root up to 20,000, else the seeds’ zones first', () => {
    const small = ['a.example.com', 'b.dev.example.com'];
    expect(aroundSeeds(small, new Set(['c.dev.example.com']))).toBe(small);
    const known = [
      ...Array.from({ length: 24_000 }, (_, i) => `h${i}.example.com`),
      ...Array.from({ length: 1_000 }, (_, i) => `h${i}.dev.example.com`),
    ];
    const learned = aroundSeeds(known, new Set(['new.dev.example.com']));
    expect(learned).toHaveLength(20_000);
    expect(learned.slice(0, 1_000).every((h) => h.endsWith('.dev.example.com'))).toBe(true);
  });
});
