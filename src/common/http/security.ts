import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's defaults, with what Swagger UI at /docs needs: its inline styles and data: images. Its scripts
 * are files of its own, so no inline script is allowed.
 */
const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  scriptSrc: ["'self'"],
  frameAncestors: ["'none'"],
  // Self-hosted on plain HTTP is normal (a LAN box, localhost): never rewrite its URLs to https.
  upgradeInsecureRequests: null,
};

const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { directives: CONTENT_SECURITY_POLICY },
  // The service answers for its own host only; its siblings under the same domain are not its business.
  strictTransportSecurity: { maxAge: 15_552_000, includeSubDomains: false },
};

/**
 * Helmet itself, on the raw response, rather than @fastify/helmet: the router's own refusals (frameworkErrors)
 * come before any route hook runs, and they must carry the same headers. One mechanism serves both.
 */
export const applySecurityHeaders = helmet(HELMET_OPTIONS);

/** Cross-origin access for browser tools: keys travel in headers, never cookies, so no credentials mode. */
export function corsOptions(origins: string[]) {
  return {
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'X-API-Key', 'Content-Type'],
    exposedHeaders: ['X-Request-Id', 'X-Next-Cursor', 'Content-Disposition'],
    maxAge: 600,
  };
}
