import FindMyWay from 'find-my-way';

export const API_PREFIX = '/api/v1';
export const MIRROR_PREFIX = '/api/public/v1';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** The longest path segment a parameter takes (a root domain, a host: 253), here as in Fastify's own router. */
export const MAX_PARAM_LENGTH = 500;

/**
 * Every route the HTTP server registered, fed from Fastify's onRoute hook. It answers two questions the
 * router cannot: which methods a path does allow (for 405 and its Allow header) and which endpoints the
 * API has (for the index document, so the list can never drift from the real routes).
 */
export class RouteIndex {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH });
  private readonly routes: { method: string; url: string }[] = [];

  add(method: string | string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      if (this.routes.some((r) => r.method === m && r.url === url)) continue;
      this.routes.push({ method: m, url });
      this.router.on(m as 'GET', url, () => undefined, { parameters: parameterCount(url) });
    }
  }

  /**
   * Methods registered for a concrete path (query string ignored), e.g. ['GET', 'HEAD']: those of the routes that
   * name it most exactly. `/scans/rescan-all` is the path of POST /scans/rescan-all, and only a parameter of
   * GET /scans/{id}: it allows POST. A match that gives a parameter as '' (an empty segment) names nothing, and a
   * catch-all (the CORS preflight's `OPTIONS *`) says nothing of the path.
   */
  allowedMethods(url: string): string[] {
    const path = url.split('?')[0];
    const matches = METHODS.flatMap((method) => {
      const match = this.router.find(method, path);
      if (!match || Object.values(match.params).some((v) => v === '')) return [];
      const { parameters } = match.store as { parameters: number };
      return parameters === Infinity ? [] : [{ method, parameters }];
    });
    const fewest = Math.min(...matches.map((m) => m.parameters));
    return matches.filter((m) => m.parameters === fewest).map((m) => m.method);
  }

  /** "GET /domains/{domain}"-style entries for every route under the API prefix, sorted by path. */
  apiEndpoints(): string[] {
    return this.routes
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .filter((r) => r.url === API_PREFIX || r.url.startsWith(`${API_PREFIX}/`))
      .map((r) => ({ method: r.method, path: toContractPath(r.url) }))
      .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
      .map((r) => `${r.method} ${r.path}`)
      .filter((e, i, all) => all.indexOf(e) === i);
  }
}

/** How many parameters a route's path has; a catch-all (`*`, `/*`) counts as matching anything. */
function parameterCount(url: string): number {
  if (url === '*' || url === '/*') return Infinity;
  return url.split('/').filter((segment) => segment.startsWith(':') || segment === '*').length;
}

/** "/api/v1/domains/:domain" → "/domains/{domain}"; the prefix itself → "/". */
export function toContractPath(url: string): string {
  const path = url.slice(API_PREFIX.length).replace(/\/+$/, '') || '/';
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Serves the mirror prefix as the same API: /api/public/v1/x is answered exactly as /api/v1/x. */
export function rewriteMirrorPrefix(url: string): string {
  if (url === MIRROR_PREFIX || url.startsWith(`${MIRROR_PREFIX}/`) || url.startsWith(`${MIRROR_PREFIX}?`)) {
    return API_PREFIX + url.slice(MIRROR_PREFIX.length);
  }
  return url;
}
