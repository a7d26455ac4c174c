import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { sendError } from './send-error.js';

/**
 * Stops an HTTP server the way a rolling restart needs: no new connections, a 503 in the contract's shape
 * for a request that still arrives on an open keep-alive connection, and time for the requests and
 * streams already running to finish. What is still open at the deadline is cut.
 */
export class HttpDrain {
  private static readonly byServer = new WeakMap<object, HttpDrain>();
  private draining = false;
  private readonly closers = new Set<() => void>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** The drain of an app's HTTP server, if it has one. */
  static of(server: object): HttpDrain | undefined {
    return HttpDrain.byServer.get(server);
  }

  /**
   * Registers the hook that refuses requests once draining has begun, and remembers the drain for HttpDrain.of.
   */
  static install(fastify: FastifyInstance): HttpDrain {
    const drain = new HttpDrain(fastify.server);
    HttpDrain.byServer.set(fastify.server, drain);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (!drain.draining) return done();
      void reply.header('connection', 'close');
      sendError(request, reply, new AppError('service_unavailable', 'The service is shutting down; retry shortly'));
    });
    return drain;
  }

  /**
   * Calls `close` when draining begins, for responses that never end by themselves (live streams): they end
   * then, and their clients reconnect to another process. Returns the function that unregisters it.
   */
  onDrain(close: () => void): () => void {
    if (this.draining) close();
    else this.closers.add(close);
    return () => this.closers.delete(close);
  }

  /** Resolves true when every connection ended by itself, false when the deadline cut the rest. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    for (const close of this.closers) close();
    this.closers.clear();
    if (!this.server.listening) return true;
    const closed = new Promise<true>((resolve) => this.server.close(() => resolve(true)));
    // A keep-alive connection whose last response just ended is idle: close those as they appear. So is one that
    // never sent a request (HTTP clients and browsers open spare connections), which Node does not count as idle.
    const sweep = () => {
      this.server.closeIdleConnections();
      for (const socket of this.sockets) if (socket.bytesRead === 0) socket.destroy();
    };
    sweep();
    const sweeper = setInterval(sweep, 100);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const finished = await Promise.race([closed, deadline]);
    clearInterval(sweeper);
    clearTimeout(timer);
    if (!finished) this.server.closeAllConnections();
    return finished;
  }
}
