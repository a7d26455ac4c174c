import { parseBountyTargets } from './scope-formats.js';
import { reduceExclusion, reduceValue } from './scope-target.js';

/** Milliseconds a call takes. */
const timed = (f: () => unknown) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

// Targets from a scope list are anyone's text. Each of these made a regular expression retry from every position
// (quadratic: minutes at these sizes) or every split (exponential: the dotted run, the starred label); read in one
// pass, each takes milliseconds. The bound is generous: a slow machine is far under it, a super-linear reading far
// over it.
describe('scope targets built to be slow', () => {
  const MiB = 1 << 20;

  const FREE_TEXT = { skip: 'free_text' };
  const EXAMPLE = { roots: ['example.com'] };
  it.each([
    ['a run of commas that does not end the text', `example.com${',;'.repeat(MiB / 2)}x`, FREE_TEXT],
    ['a run of commas that ends it', `example.com${',;'.repeat(MiB / 2)}`, EXAMPLE],
    ['whitespace not followed by a final *', `example.com${' '.repeat(MiB)}x`, FREE_TEXT],
    ['brackets never closed', `example.com/${'['.repeat(MiB)}`, EXAMPLE],
    ['closing parentheses at the end', `example.com${')'.repeat(MiB / 8)}`, EXAMPLE],
    ['a long dotted run that fails at its end', `${'a.'.repeat(MiB / 2)}!`, FREE_TEXT],
  ])('reads %s in linear time', (_name, target, expected) => {
    let reduced: unknown;
    expect(timed(() => (reduced = reduceValue(target)))).toBeLessThan(2000);
    expect(reduced).toEqual(expected);
  });

  it('reads the dotted run that backtracked exponentially at any length, with its meaning kept', () => {
    // 2^40 splits for a backtracking engine; one pass here.
    expect(timed(() => expect(reduceValue(`a${'.a'.repeat(40)}!`)).toEqual({ skip: 'free_text' }))).toBeLessThan(1000);
    expect(reduceValue(`a${'.a'.repeat(40)}.example.com`)).toEqual({ roots: ['example.com'] });
    expect(reduceValue('x.(com|co.uk)')).toEqual({ roots: ['x.com', 'x.co.uk'] });
  });

  it('refuses an alternation that stands for more than 256 names, rather than writing each', () => {
    // 2^40 names: expanded one by one, they would never end.
    const chain = `${'(a|b).'.repeat(40)}example.com`;
    let reduced: unknown;
    expect(timed(() => (reduced = reduceValue(chain)))).toBeLessThan(1000);
    expect(reduced).toEqual({ skip: 'free_text' });
    expect(reduceExclusion(null, chain)).toEqual({ skip: 'free_text' });
    expect(reduceValue(`${'(a|b).'.repeat(8)}example.com`)).toEqual({ roots: ['example.com'] });
  });

  it('checks a starred out-of-scope wildcard against the in-scope hosts in linear time', () => {
    // Out of scope: a*a*…a*.example.com (a regex of 12 stars); in scope: a long label that fails it only at the
    // end. A backtracking engine tries every way to share the label among the stars: 60^12 ways.
    const program = {
      handle: 'acme',
      name: 'Acme',
      targets: {
        in_scope: [
          { asset_type: 'URL', asset_identifier: 'example.com' },
          { asset_type: 'URL', asset_identifier: `${'a'.repeat(60)}.example.net` },
          { asset_type: 'URL', asset_identifier: 'aaa.example.com' },
        ],
        out_of_scope: [
          { asset_type: 'URL', asset_identifier: `${'a*'.repeat(12)}.example.com` },
          { asset_type: 'URL', asset_identifier: 'a*a.example.com' },
        ],
      },
    };
    let parsed: ReturnType<typeof parseBountyTargets> | undefined;
    expect(timed(() => (parsed = parseBountyTargets(JSON.stringify([program]), 'hackerone')))).toBeLessThan(2000);
    // The first names no in-scope host and is kept; the second would hide aaa.example.com, which the program lists.
    expect(parsed?.exclusions.map((e) => e.pattern)).toEqual([`${'a*'.repeat(12)}.example.com`]);
    expect(parsed?.outOfScope.skipped).toEqual({ names_in_scope_host: 1 });
  });

  it('takes the handle of a Bugcrowd program from its URL, whatever run of slashes it holds', () => {
    const program = (url: string) => ({
      url,
      name: 'Acme',
      targets: { in_scope: [{ type: 'website', target: 'acme.com' }] },
    });
    const read = (url: string) => parseBountyTargets(JSON.stringify([program(url)]), 'bugcrowd').entries;
    let entries: ReturnType<typeof read> = [];
    // Slashes that do not end the URL: `/\/+$/` would scan the run from each of them.
    expect(timed(() => (entries = read(`https://bugcrowd.com/${'/'.repeat(MiB)}acme`)))).toBeLessThan(2000);
    expect(entries).toEqual([{ domain: 'acme.com', platform: 'bugcrowd', program: 'Acme', handle: 'acme' }]);
    expect(read('https://bugcrowd.com/acme//')[0].handle).toBe('acme');
  });
});
