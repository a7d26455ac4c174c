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
    // A segment as long as the server's router takes (a 253-character name and more), not only find-my-way's 100.
    expect(routes.allowedMethods(`/api/v1/domains/${'a.'.repeat(150)}io`)).toEqual(['GET', 'HEAD']);
  });

  it('allows at a path the methods of the routes that name it most exactly, not those it is only a parameter of', () => {
    const scans = new RouteIndex();
    scans.add(['GET', 'HEAD'], '/api/v1/scans/:id');
    scans.add(['GET', 'HEAD'], '/api/v1/scans/status');
    scans.add('POST', '/api/v1/scans/rescan-all');
    scans.add('OPTIONS', '*');
    expect(scans.allowedMethods('/api/v1/scans/rescan-all')).toEqual(['POST']);
    expect(scans.allowedMethods('/api/v1/scans/status')).toEqual(['GET', 'HEAD']);
    expect(scans.allowedMethods('/api/v1/scans/0c9f')).toEqual(['GET', 'HEAD']);
    // A catch-all says nothing of a path: no route is there.
    expect(scans.allowedMethods('/api/v1/nothing')).toEqual([]);
  });

  it('finds no route at a path whose parameter would be an empty segment', () => {
    const hooks = new RouteIndex();
    hooks.add('POST', '/api/v1/webhooks/:id/test');
    expect(hooks.allowedMethods('/api/v1/webhooks//test')).toEqual([]);
    expect(hooks.allowedMethods('/api/v1/webhooks/x/test')).toEqual(['POST']);
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
