import { RouteIndex, rewriteMirrorPrefix, toContractPath } from './route-index.js';

describe('route index', () => {
  const routes = new RouteIndex();
  routes.add(['GET', 'HEAD'], '/api/v1/domains/:domain');
  routes.add('POST', '/api/v1/scans');
  routes.add(['GET', 'HEAD'], '/api/v1');
  routes.add('GET', '/health/live');

  it('knows which methods a concrete path allows', () => {
    expect(routes.allowedMethods('/api/v1/domains/example.com?x=1')).toEqual(['GET', 'HEAD']);
    expect(routes.allowedMethods('/api/v1/scans/')).toEqual(['POST']);
    expect(routes.allowedMethods('/api/v1/nothing')).toEqual([]);
  });

  it('lists API endpoints in contract form, without HEAD and without routes outside the prefix', () => {
    expect(routes.apiEndpoints()).toEqual(['GET /', 'GET /domains/{domain}', 'POST /scans']);
  });

  it('maps paths to the contract form', () => {
    expect(toContractPath('/api/v1/platforms/:slug/subdomains')).toBe('/platforms/{slug}/subdomains');
    expect(toContractPath('/api/v1/')).toBe('/');
  });

  it.each([
    ['/api/public/v1', '/api/v1'],
    ['/api/public/v1/', '/api/v1/'],
    ['/api/public/v1/me?x=1', '/api/v1/me?x=1'],
    ['/api/public/v1?x=1', '/api/v1?x=1'],
    ['/api/public/v10/me', '/api/public/v10/me'],
    ['/api/v1/me', '/api/v1/me'],
  ])('serves %s as %s', (from, to) => expect(rewriteMirrorPrefix(from)).toBe(to));
});
