import { isRootDomain, rootDomainProblem } from './root-domain.js';

describe('root domains', () => {
  it.each([
    'example.com',
    'example.co.uk',
    'xn--bcher-kva.de',
    'a-b.io',
    'shop.myshopify.com',
    'app.herokuapp.com',
    'example.test',
  ])('accepts %s', (d) => expect(rootDomainProblem(d)).toBeNull());

  it.each([
    ['Example.com', 'must be lowercase'],
    ['https://example.com', 'must be a bare domain'],
    ['example.com/path', 'must be a bare domain'],
    ['example.com:443', 'must be a bare domain'],
    ['www.example.com', 'is not a root domain (its root domain is example.com)'],
    ['co.uk', 'is not a registrable domain'],
    ['herokuapp.com', 'is not a registrable domain'],
    ['www.app.herokuapp.com', 'is not a root domain (its root domain is app.herokuapp.com)'],
    ['localhost', 'is not a valid domain name'],
    ['-bad.com', 'is not a valid domain name'],
    ['bad-.com', 'is not a valid domain name'],
    ['exa_mple.com', 'is not a valid domain name'],
    ['1.2.3.4', 'is not a valid domain name'],
    ['', 'must be 1 to 253 characters'],
    [`${'a'.repeat(64)}.com`, 'is not a valid domain name'],
  ])('rejects %j: %s', (d, problem) => expect(rootDomainProblem(d)).toContain(problem));

  it('isRootDomain rejects non-strings', () => {
    expect(isRootDomain(42)).toBe(false);
    expect(isRootDomain('example.com')).toBe(true);
  });
});
