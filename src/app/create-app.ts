import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { databaseSources, instrumentHttp } from '../metrics/metrics-http.js';
import { Metrics } from '../metrics/metrics.js';
import { AppModule } from './app.module.js';
import { ACCOUNT_PATHS } from '../web/account/account.module.js';
import { DASHBOARD_PATHS } from '../web/dashboard/dashboard.module.js';
import { OpenApiDocument } from '../api-index/openapi.controller.js';
import { buildOpenApiDocument } from './openapi.js';
import { AppError } from '../common/errors/app-error.js';
import { HttpDrain } from '../common/http/http-drain.js';
import { installCompression } from '../common/http/compression.js';
import { installConditionalGet } from '../common/http/conditional-get.js';
import { installRouteCheck } from '../common/http/route-check.js';
import { applySecurityHeaders, corsOptions } from '../common/http/security.js';
import { serializeReply } from '../common/rendered-json.js';
import { requestIdFor } from '../common/http/request-id.js';
import { sendError } from '../common/http/send-error.js';
import { API_PREFIX, MAX_PARAM_LENGTH, RouteIndex, rewriteMirrorPrefix } from '../common/http/route-index.js';
import type { Environment } from '../config/environment.js';
import { createLogger, logRequest, logRequests } from '../common/logging/logging.js';
import type { DatabaseTarget } from '../database/database.js';

export const BODY_LIMIT = 16 * 1024;

/** A worker-only process (HTTP=off) answers its health probes (and /metrics) and nothing else. */
function workerOnly(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (/^\/(health\/(live|ready)|metrics)\/?(\?|$)/.test(request.url)) return done();
  sendError(
    request,
    reply,
    AppError.notFound('This process runs the scan worker only (HTTP=off); the API is served by the API processes'),
  );
}

/**
 * Whose X-Forwarded-* to believe: nobody's, the nearest `n` hops (the client is the address the outermost trusted
 * proxy saw, so a client cannot name itself by sending the header), or the listed proxies.
 */
function trustedProxies(setting: string): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (setting === 'off') return false;
  if (/^\d+$/.test(setting)) return (_address: string, hop: number) => hop < Number(setting);
  return setting.split(',').map((s) => s.trim());
}

/** HTML forms, for the account page and the dashboard only: the API takes JSON bodies and answers any other type 400 invalid_body. */
function parseAccountForm(
  request: FastifyRequest,
  body: string | Buffer,
  done: (e: Error | null, b?: unknown) => void,
) {
  if (!request.url.startsWith('/account/') && !request.url.startsWith('/app/')) {
    return done(
      Object.assign(new Error('Unsupported Media Type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }),
    );
  }
  // A name given more than once (a group of checkboxes) keeps every value, in order.
  // No prototype: a field named __proto__ is a field like any other.
  const form = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(body.toString())) {
    const had = form[name];
    form[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  done(null, form);
}

/**
 * Requests Node refuses before Fastify sees them: too slow (REQUEST_TIMEOUT_SECONDS), headers too large, or not
 * HTTP. Answered in the contract's shape, then the connection is closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'The request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'payload_too_large', 'The request headers are too large']
        : [400, 'invalid_body', 'Malformed HTTP request'];
  const id = randomUUID();
  const body = JSON.stringify({ error: { code, message }, request_id: id });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nCache-Control: no-store\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Stops the app's HTTP server gracefully (see HttpDrain); true when nothing had to be cut. */
export function drainHttp(app: NestFastifyApplication, timeoutMs: number): Promise<boolean> {
  return HttpDrain.of(app.getHttpServer())?.drain(timeoutMs) ?? Promise.resolve(true);
}

/** Builds the API on Fastify: both prefixes, request ids on every response, the contract's errors everywhere. */
export async function createApp(env: Environment, database: DatabaseTarget): Promise<NestFastifyApplication> {
  const routes = new RouteIndex();
  // The data source exists once Nest has built the app; a scrape before that reads nothing.
  const db: { source?: DataSource } = {};
  const metrics = new Metrics(databaseSources(() => db.source));
  const logger = createLogger(env);
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    // A client must send its whole request (headers and body) within REQUEST_TIMEOUT_SECONDS; Node checks every
    // second (its default, 30 s, would let a trickled body live half a minute longer). Responses are not bounded:
    // exports and streams run as long as their clients read.
    requestTimeout: env.REQUEST_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: env.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    http: {
      requestTimeout: env.REQUEST_TIMEOUT_SECONDS * 1000,
      headersTimeout: Math.min(60_000, env.REQUEST_TIMEOUT_SECONDS * 1000),
      connectionsCheckingInterval: 1000,
    },
    clientErrorHandler: answerClientError,
    trustProxy: trustedProxies(env.TRUST_PROXY),
    genReqId: requestIdFor,
    rewriteUrl: (req: { url?: string }) => rewriteMirrorPrefix(req.url ?? '/'),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // HttpDrain answers requests that arrive while stopping, in the contract's shape.
    return503OnClosing: false,
    // The router's own refusals (malformed percent-encoding, a path segment over maxParamLength) never
    // reach Nest: answer them here in the contract's shape. No resource can live at such a path.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      reply.raw.once('finish', () => logRequest(logger, request, reply)); // no hooks run for these
      applySecurityHeaders(request.raw, reply.raw, () =>
        sendError(
          request,
          reply,
          AppError.notFound(`No endpoint at this path: ${error.message.split(':')[0].slice(0, 100)}`),
        ),
      );
    },
  });
  const fastify = adapter.getInstance();
  // Further connections are closed by Node at once; streams count like any other connection.
  fastify.server.maxConnections = env.HTTP_MAX_CONNECTIONS;
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    applySecurityHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined));
  });
  HttpDrain.install(fastify);
  logRequests(fastify, logger);
  if (env.HTTP === 'off') fastify.addHook('onRequest', workerOnly);
  instrumentHttp(fastify, metrics, env.METRICS === 'on', env.METRICS_TOKEN);
  installRouteCheck(fastify, routes);
  installConditionalGet(fastify);
  await installCompression(fastify);
  // Fastify types a serializer's result as a string, and sends a Buffer as well: a rendered body is one.
  fastify.setReplySerializer(serializeReply as (payload: unknown) => string);
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, parseAccountForm);

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(env, database, routes, metrics, logger),
    adapter,
    {
      // Lines logged while Nest builds the app wait for the pino logger (nestjs-pino) below.
      bufferLogs: true,
      abortOnError: false,
      // Only Fastify's JSON parser: a form or any other body type is answered with 400 invalid_body.
      bodyParser: false,
    },
  );
  app.useLogger(app.get(Logger));
  if (env.CORS_ORIGINS?.length) app.enableCors(corsOptions(env.CORS_ORIGINS));
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready', ...ACCOUNT_PATHS, ...DASHBOARD_PATHS] });
  const document = buildOpenApiDocument(app, env.PUBLIC_URL);
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
