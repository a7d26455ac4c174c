import type { Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { sendError } from './send-error.js';

/**
 * Stops an HTTP server the way a rolling restart needs: no new connections, a 503 in the contract's shape
 * for a request that still arrives on an open keep-alive connection, and time for the requests and
 * streams already running to finish. What is still open at the deadline is cut.
 */
export class HttpDrain {
  private draining = false;

  constructor(private readonly server: Server) {}

  /** Registers the hook that refuses requests once draining has begun. */
  static install(fastify: FastifyInstance): HttpDrain {
    const drain = new HttpDrain(fastify.server);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (!drain.draining) return done();
      void reply.header('connection', 'close');
      sendError(request, reply, new ApiError('service_unavailable', 'The service is shutting down; retry shortly'));
    });
    return drain;
  }

  /** Resolves true when every connection ended by itself, false when the deadline cut the rest. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    if (!this.server.listening) return true;
    const closed = new Promise<true>((resolve) => this.server.close(() => resolve(true)));
    // A keep-alive connection whose last response just ended is idle: close those as they appear.
    this.server.closeIdleConnections();
    const sweeper = setInterval(() => this.server.closeIdleConnections(), 100);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const finished = await Promise.race([closed, deadline]);
    clearInterval(sweeper);
    clearTimeout(timer);
    if (!finished) this.server.closeAllConnections();
    return finished;
  }
}
