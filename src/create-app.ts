import { type LogLevel as NestLogLevel, ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { rows } from './database/sql.js';
import { Metrics } from './metrics/metrics.js';
import helmet, { type HelmetOptions } from 'helmet';
import { AppModule } from './app.module.js';
import { OpenApiDocument } from './api-index/openapi.controller.js';
import { buildOpenApiDocument } from './common/openapi/openapi.js';
import { ApiError } from './common/errors/api-error.js';
import { HttpDrain } from './common/http/http-drain.js';
import { serializeReply } from './common/rendered-json.js';
import { requestIdFor } from './common/http/request-id.js';
import { sendError } from './common/http/send-error.js';
import { API_PREFIX, RouteIndex, rewriteMirrorPrefix } from './common/http/route-index.js';
import type { Environment, LogLevel } from './config/environment.js';
import type { DatabaseTarget } from './database/database.js';

export const BODY_LIMIT = 16 * 1024;

const NEST_LEVELS: Record<LogLevel, NestLogLevel[]> = {
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

export function createLogger(env: Environment): ConsoleLogger {
  return new ConsoleLogger({ json: true, logLevels: NEST_LEVELS[env.LOG_LEVEL], colors: false });
}

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
const applySecurityHeaders = helmet(HELMET_OPTIONS);

/** Cross-origin access for browser tools: keys travel in headers, never cookies, so no credentials mode. */
function corsOptions(origins: string[]) {
  return {
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'X-API-Key', 'Content-Type'],
    exposedHeaders: ['X-Request-Id', 'X-Next-Cursor', 'Content-Disposition'],
    maxAge: 600,
  };
}

const drains = new WeakMap<object, HttpDrain>();

/** Prometheus text; with METRICS_TOKEN only for `Authorization: Bearer <METRICS_TOKEN>`. */
function metricsHandler(metrics: Metrics, token: string | undefined) {
  const expected = token ? Buffer.from(`Bearer ${token}`) : null;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length === 0)
        return sendError(request, reply, new ApiError('missing_token', 'Send Authorization: Bearer <METRICS_TOKEN>'));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return sendError(request, reply, new ApiError('invalid_token', 'Not the metrics token'));
      }
    }
    const text = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(text);
  };
}

/** A worker-only process (HTTP=off) answers its health probes (and /metrics) and nothing else. */
function workerOnly(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (/^\/(health\/(live|ready)|metrics)\/?(\?|$)/.test(request.url)) return done();
  sendError(
    request,
    reply,
    ApiError.notFound('This process runs the scan worker only (HTTP=off); the API is served by the API processes'),
  );
}

/** Stops the app's HTTP server gracefully (see HttpDrain); true when nothing had to be cut. */
export function drainHttp(app: NestFastifyApplication, timeoutMs: number): Promise<boolean> {
  return drains.get(app.getHttpServer())?.drain(timeoutMs) ?? Promise.resolve(true);
}

/** Builds the API on Fastify: both prefixes, request ids on every response, the contract's errors everywhere. */
export async function createApp(env: Environment, database: DatabaseTarget): Promise<NestFastifyApplication> {
  const routes = new RouteIndex();
  // The data source exists once Nest has built the app; a scrape before that reads nothing.
  const db: { source?: DataSource } = {};
  const metrics = new Metrics({
    pool: () => {
      const pool = (db.source?.driver as unknown as { master?: Pool } | undefined)?.master;
      return { total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0 };
    },
    workerLagSeconds: async () => {
      if (!db.source) return 0;
      const [row] = await rows<{ lag: number }>(
        db.source,
        `SELECT coalesce(extract(epoch FROM now() - min(next_scan_at)), 0)::float8 AS lag
           FROM domains WHERE enabled AND next_scan_at <= now()`,
      );
      return Math.max(0, row?.lag ?? 0);
    },
  });
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    genReqId: requestIdFor,
    rewriteUrl: (req: { url?: string }) => rewriteMirrorPrefix(req.url ?? '/'),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // HttpDrain answers requests that arrive while stopping, in the contract's shape.
    return503OnClosing: false,
    // The router's own refusals (malformed percent-encoding, a path segment over maxParamLength) never
    // reach Nest: answer them here in the contract's shape. No resource can live at such a path.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      applySecurityHeaders(request.raw, reply.raw, () =>
        sendError(
          request,
          reply,
          ApiError.notFound(`No endpoint at this path: ${error.message.split(':')[0].slice(0, 100)}`),
        ),
      ),
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    applySecurityHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined));
  });
  drains.set(fastify.server, HttpDrain.install(fastify));
  if (env.HTTP === 'off') fastify.addHook('onRequest', workerOnly);
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  if (env.METRICS === 'on') fastify.get('/metrics', metricsHandler(metrics, env.METRICS_TOKEN));
  fastify.setReplySerializer(serializeReply);

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(env, database, routes, metrics),
    adapter,
    {
      logger: createLogger(env),
      abortOnError: false,
      // Only Fastify's JSON parser: a form or any other body type is answered with 400 invalid_body.
      bodyParser: false,
    },
  );
  if (env.CORS_ORIGINS?.length) app.enableCors(corsOptions(env.CORS_ORIGINS));
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready'] });
  const document = buildOpenApiDocument(app);
  app.get(OpenApiDocument).document = document;
  if (env.DOCS === 'on') {
    SwaggerModule.setup('docs', app, document, {
      useGlobalPrefix: false,
      raw: false,
      customSiteTitle: 'Subdomain Monitor API',
      swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
    });
  }
  db.source = app.get(DataSource);
  await app.init();
  await fastify.ready();
  return app;
}
