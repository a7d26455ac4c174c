import { hash } from 'node:crypto';
import {
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { type Observable, defer, lastValueFrom, map } from 'rxjs';
import { Environment } from '../../config/environment.js';
import { RenderedJson } from '../rendered-json.js';
import { API_PREFIX } from './route-index.js';
import { RouteMetadata } from './route-metadata.js';

/**
 * What conditional GETs need of the data version: the number reads answer for, and a call when it moves. The
 * database wing provides it (DataVersion); common code knows only this shape.
 */
export abstract class VersionSource {
  abstract forReads(): number | null;
  abstract onMove(listener: () => void): () => void;
}

/** Every JSON and txt answer of a GET may be kept, by the caller alone, and must be checked before each use. */
export const CACHE_CONTROL = 'private, no-cache';

const ANSWERED_FRESH = 'conditional:fresh';
const CACHED_AGGREGATE = 'conditional:aggregate';

/**
 * A route whose answer can change without the data version moving (a CT log's position, a key's last use): its
 * ETag still comes from its body, but If-None-Match never skips its query.
 */
export const AnsweredFresh = () => SetMetadata(ANSWERED_FRESH, true);

/**
 * A route whose answer is the same for every caller and costly to compute (an aggregate): computed once per data
 * version, minute and URL in each process, then answered from memory.
 */
export const CachedAggregate = () =>
  applyDecorators(SetMetadata(CACHED_AGGREGATE, true), UseInterceptors(KeptAggregateInterceptor));

/** An aggregate's answer kept in memory, with its ETag once it has been sent. */
interface KeptBody {
  body: RenderedJson | object;
  etag?: string;
}

interface Conditional {
  /** Where the answer's ETag is kept for If-None-Match, or null for a route answered fresh. */
  key: string | null;
  /** The kept aggregate this answer is, or comes to be: its ETag is computed once. */
  kept?: KeptBody;
  /** Where an aggregate's body is kept (the version, minute and URL), or null for any other route. */
  aggregateKey?: string | null;
  cache: ResponseCache;
}

declare module 'fastify' {
  interface FastifyRequest {
    conditional?: Conditional;
  }
}

/** Whether an If-None-Match header names this ETag (weak comparison, as RFC 9110 has it for GET), or is `*`. */
export function matchesEtag(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  const listed = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',');
  return listed.some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}

/** A URL of the API: under its prefix, or the prefix itself (the index), with or without a slash or a query. */
function isApiUrl(url: string): boolean {
  return url.startsWith(API_PREFIX) && ['', '/', '?'].includes(url.charAt(API_PREFIX.length));
}

/** The ETag of a body: a digest of its bytes, weak because the same body is also sent compressed. */
export function etagOf(body: string | Buffer): string {
  return `W/"${hash('sha1', body, 'base64url')}"`;
}

/**
 * Answers and ETags kept for the current data version, within RESPONSE_CACHE_MB (a quarter for ETags, the rest for
 * aggregates' bodies), least recently used out first. Everything is dropped the moment the version moves.
 */
@Injectable()
export class ResponseCache {
  private readonly etags: LRUCache<string, string> | null;
  private readonly bodies: LRUCache<string, KeptBody> | null;
  /** Aggregates being computed now, by key (see aggregate). */
  private readonly computing = new Map<string, Promise<KeptBody | undefined>>();

  constructor(env: Environment, version: VersionSource) {
    const budget = env.RESPONSE_CACHE_MB * 2 ** 20;
    this.etags =
      budget > 0
        ? new LRUCache({
            maxSize: Math.ceil(budget / 4),
            sizeCalculation: (etag, key) => key.length + etag.length + 64,
          })
        : null;
    this.bodies =
      budget > 0
        ? new LRUCache({
            maxSize: Math.ceil((budget * 3) / 4),
            sizeCalculation: ({ body }, key) =>
              key.length + (body instanceof RenderedJson ? body.body.length : JSON.stringify(body).length) + 128,
          })
        : null;
    version.onMove(() => {
      this.etags?.clear();
      this.bodies?.clear();
    });
  }

  etag(key: string): string | undefined {
    return this.etags?.get(key);
  }

  keepEtag(key: string, etag: string): void {
    this.etags?.set(key, etag);
  }

  body(key: string): KeptBody | undefined {
    return this.bodies?.get(key);
  }

  /**
   * The aggregate of `key`, computed by `compute` unless it is kept, or is being computed for another request:
   * then that computation's answer serves this request too. Requests that arrive together while an aggregate is
   * first computed (at 50,000 roots top domains take seconds) compute it once, not once each.
   */
  async aggregate(key: string, compute: () => Promise<unknown>): Promise<KeptBody | undefined> {
    const kept = this.body(key);
    if (kept) return kept;
    let pending = this.computing.get(key);
    if (!pending) {
      pending = compute().then((body) => {
        if (body === undefined || body === null || body === '') return undefined;
        const computed: KeptBody = { body };
        this.keepBody(key, computed);
        return computed;
      });
      this.computing.set(key, pending);
      // Settled either way: the next request after a failure computes again.
      const done = () => this.computing.delete(key);
      pending.then(done, done);
    }
    return pending;
  }

  keepBody(key: string, kept: KeptBody): void {
    this.bodies?.set(key, kept);
  }
}

/**
 * Thrown by ConditionalGetGuard when If-None-Match names the ETag kept for the request's key: ApiExceptionFilter
 * answers it with 304 and the route never runs. No failure: it is never logged, so it carries no stack (capturing
 * one through Nest's frames took ~7 µs, against ~0.5 µs without).
 */
export class NotModified extends Error {
  constructor(readonly etag: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super('not modified');
    Error.stackTraceLimit = limit;
  }
}

/** Makes the reply a 304 for `etag`: no body, no Content-Type, the ETag and Cache-Control a 200 would carry. */
export function notModified(reply: FastifyReply, etag: string): void {
  void reply.status(304).header('etag', etag).header('cache-control', CACHE_CONTROL);
  reply.removeHeader('content-type');
}

/** What a route's metadata says of its conditional answers. */
interface RouteConditions {
  fresh: boolean;
  aggregate: boolean;
}

/**
 * Conditional GETs of the API, as the guard that runs after AuthGuard (AppModule registers the two in that order):
 * a guard, not an interceptor, so that a request whose answer is not kept pays for no Observable around its route.
 * The answer is known for a key made of the data version reads answer for (VersionSource.forReads: with read
 * replicas, the one they are known to hold), the minute (so that windows in hours stay exact to the minute), the
 * API key and the URL. When If-None-Match names the ETag kept for that key, it throws NotModified (a 304) and the
 * route's SQL never runs. An aggregate's body is kept by CachedAggregate's interceptor under the version, minute
 * and URL. The ETag itself is set by the onSend hook (installConditionalGet) from the body sent.
 */
@Injectable()
export class ConditionalGetGuard implements CanActivate {
  private readonly routes = new RouteMetadata<RouteConditions>((targets) => ({
    fresh: this.reflector.getAllAndOverride<boolean>(ANSWERED_FRESH, targets) ?? false,
    aggregate: this.reflector.getAllAndOverride<boolean>(CACHED_AGGREGATE, targets) ?? false,
  }));

  constructor(
    private readonly version: VersionSource,
    private readonly cache: ResponseCache,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method !== 'GET' || !isApiUrl(request.url)) return true;
    const route = this.routes.of(context);
    // Answered fresh, nothing kept: a route whose answer moves without the version, or no version known to hold
    // for reads (read replicas not yet caught up with any).
    const version = route.fresh ? null : this.version.forReads();
    if (version === null) {
      request.conditional = { key: null, cache: this.cache };
      return true;
    }
    const stamp = `${version}|${Math.floor(Date.now() / 60_000)}`;
    const key = `${stamp}|${request.apiKey?.id ?? 'public'}|${request.url}`;
    request.conditional = { key, cache: this.cache, aggregateKey: route.aggregate ? `${stamp}|${request.url}` : null };
    const known = this.cache.etag(key);
    if (known && matchesEtag(request.headers['if-none-match'], known)) throw new NotModified(known);
    return true;
  }
}

/**
 * An aggregate's answer, kept for the version, minute and URL in this process (ConditionalGetGuard names the key),
 * then answered from memory; requests that ask for it while it is first computed share that computation.
 */
@Injectable()
export class KeptAggregateInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const conditional = context.switchToHttp().getRequest<FastifyRequest>().conditional;
    const key = conditional?.aggregateKey;
    if (!conditional || !key) return next.handle();
    const compute = () => lastValueFrom(next.handle(), { defaultValue: undefined });
    return defer(() => conditional.cache.aggregate(key, compute)).pipe(
      map((kept) => {
        conditional.kept = kept;
        return kept?.body;
      }),
    );
  }
}

/**
 * Sets ETag and Cache-Control on each 200 of an API GET whose body is text (JSON, txt pages; not exports or the
 * stream, which are streamed), answers 304 with no body when If-None-Match names it, and keeps the ETag for the
 * guard. Installed before compression, so the ETag is the plain body's.
 */
export function installConditionalGet(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    const conditional = request.conditional;
    if (!conditional || reply.statusCode !== 200) return done(null, payload);
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    const etag = conditional.kept?.etag ?? etagOf(payload);
    if (conditional.kept) conditional.kept.etag = etag;
    void reply.header('etag', etag).header('cache-control', CACHE_CONTROL);
    if (conditional.key) conditional.cache.keepEtag(conditional.key, etag);
    if (!matchesEtag(request.headers['if-none-match'], etag)) return done(null, payload);
    notModified(reply, etag);
    done(null, '');
  });
}
