import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import type { RouteIndex } from './route-index.js';
import { sendError } from './send-error.js';

/**
 * Answers the requests no route can rightly take, before the key is checked or a body is read: the router would
 * otherwise let them reach a handler or a check that answers something else.
 * - No route for the method (an unknown path, or a method such as QUERY that the path does not have): 405 with the
 *   path's Allow, or 404. Left to run, Fastify first refuses a QUERY without Content-Type as a bad body.
 * - An empty path segment (`/webhooks//test`): the router gives the parameter as '', which names nothing: 404.
 * - A path that is another route's own (`/scans/rescan-all`, a route for POST) read as a parameter of a route for
 *   this method (`GET /scans/{id}`): 405 with that route's Allow.
 */
export function installRouteCheck(fastify: FastifyInstance, routes: RouteIndex): void {
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const refusal = routeRefusal(routes, request);
    if (refusal) sendError(request, reply, refusal);
    else done();
  });
}

/** Why no route can take the request, or null when its route may. */
export function routeRefusal(routes: RouteIndex, request: FastifyRequest): AppError | null {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return unmatched(routes, request);
  // Only a route with parameters can take a path that is not its own; a catch-all (`*`) takes any path by design.
  if (!pattern.includes(':')) return null;
  if (Object.values(request.params as Record<string, string>).some((value) => value === '')) {
    return AppError.notFound(`No endpoint ${request.method} ${request.url.split('?')[0]}`);
  }
  const allowed = routes.allowedMethods(request.url);
  // Nothing allowed would mean the index cannot route what the router did: let the route answer.
  return allowed.length === 0 || allowed.includes(request.method) ? null : notAllowed(request, allowed);
}

/** The answer to a request no route of its method matches: 405 where the path has other methods, else 404. */
export function unmatched(routes: RouteIndex, request: FastifyRequest): AppError {
  const allowed = routes.allowedMethods(request.url);
  if (allowed.length > 0) return notAllowed(request, allowed);
  return AppError.notFound(`No endpoint ${request.method} ${request.url.split('?')[0]}`);
}

function notAllowed(request: FastifyRequest, allowed: string[]): AppError {
  const path = request.url.split('?')[0];
  return new AppError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`, {
    allow: allowed,
  });
}
