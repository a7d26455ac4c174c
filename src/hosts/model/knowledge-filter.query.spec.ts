import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { FeedKnowledgeQuery, KnowledgeFilterQuery } from './knowledge-filter.query.js';

type QueryClass = typeof KnowledgeFilterQuery | typeof FeedKnowledgeQuery;

/** A query string's parameters as the global pipe reads them: transformed, then the first failure's message. */
async function read(query: Record<string, unknown>, cls: QueryClass = KnowledgeFilterQuery) {
  const value = plainToInstance(cls, query);
  const errors = await validate(value, { whitelist: true, forbidUnknownValues: false, stopAtFirstError: true });
  return { value: { ...value }, error: errors.map((e) => Object.values(e.constraints ?? {})[0])[0] };
}

const STATUS = 'status must be an HTTP status from 100 to 599';
const CNAME = 'cname must be a name suffix such as azurewebsites.net';

describe('the knowledge filters of a query string', () => {
  it('lists and search show wildcard hosts, the feeds leave them out; both show hosts in scope', async () => {
    expect(await read({})).toEqual({ value: { wildcard: 'include', scope: 'in' }, error: undefined });
    expect(await read({}, FeedKnowledgeQuery)).toEqual({
      value: { wildcard: 'exclude', scope: 'in' },
      error: undefined,
    });
  });

  it('reads every filter given', async () => {
    const { value, error } = await read({
      resolves: 'true',
      status: '404',
      takeover: '0',
      cname: 'azurewebsites.net',
      wildcard: 'only',
      scope: 'all',
    });
    expect(error).toBeUndefined();
    expect(value).toEqual({
      resolves: true,
      status: 404,
      takeover: false,
      cname: 'azurewebsites.net',
      wildcard: 'only',
      scope: 'all',
    });
  });

  describe.each(['resolves', 'takeover'])('%s', (name) => {
    it.each([
      ['true', true],
      ['TRUE', true],
      ['1', true],
      ['false', false],
      ['False', false],
      ['0', false],
    ])('reads %s as %s', async (given, expected) => {
      expect(await read({ [name]: given })).toMatchObject({ value: { [name]: expected }, error: undefined });
    });

    it.each([['yes'], [''], ['2'], [['true', 'false']]])('refuses %j', async (given) => {
      expect((await read({ [name]: given })).error).toBe(`${name} must be true or false`);
    });
  });

  describe('status', () => {
    it.each([
      ['100', 100],
      ['200', 200],
      ['599', 599],
    ])('reads %s', async (given, status) => {
      expect(await read({ status: given })).toMatchObject({ value: { status }, error: undefined });
    });

    it.each([
      ['099'],
      ['0200'],
      ['600'],
      ['99'],
      ['2000'],
      ['20x'],
      ['2e2'],
      ['200.0'],
      [' 200'],
      [''],
      [['200', '404']],
    ])('refuses %j', async (given) => {
      expect((await read({ status: given })).error).toBe(STATUS);
    });
  });

  describe('cname', () => {
    it.each([
      ['azurewebsites.net', 'azurewebsites.net'],
      ['  AzureWebSites.NET ', 'azurewebsites.net'],
      ['net', 'net'],
      ['_dmarc.example-1.org', '_dmarc.example-1.org'],
      [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, undefined],
    ])('reads %j', async (given, cname) => {
      expect(await read({ cname: given })).toMatchObject({ value: { cname: cname ?? given }, error: undefined });
    });

    it.each([
      [''],
      ['   '],
      ['.azurewebsites.net'],
      ['azurewebsites.net.'],
      ['azure..net'],
      ['*.azurewebsites.net'],
      ['azure websites.net'],
      ['xn--bcher-kva.example/path'],
      ['bücher.example'],
      [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`],
      [['a.example', 'b.example']],
    ])('refuses %j', async (given) => {
      expect((await read({ cname: given })).error).toBe(CNAME);
    });
  });

  it.each([
    ['lists', 'wildcard', 'ONLY', 'wildcard must be one of: exclude, include, only'],
    ['feeds', 'wildcard', 'none', 'wildcard must be one of: exclude, include, only'],
    ['lists', 'scope', 'maybe', 'scope must be one of: in, out, all'],
    ['feeds', 'scope', ['in', 'out'], 'scope must be one of: in, out, all'],
  ] as const)('%s refuse %s=%j: %s', async (on, name, given, message) => {
    const cls = on === 'lists' ? KnowledgeFilterQuery : FeedKnowledgeQuery;
    expect((await read({ [name]: given }, cls)).error).toBe(message);
  });

  it.each(['exclude', 'include', 'only'])('takes wildcard=%s on lists and feeds alike', async (wildcard) => {
    expect((await read({ wildcard })).value.wildcard).toBe(wildcard);
    expect((await read({ wildcard }, FeedKnowledgeQuery)).value.wildcard).toBe(wildcard);
  });
});
