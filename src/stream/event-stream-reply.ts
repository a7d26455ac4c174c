import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Readies a reply to carry an open stream's events (the API's stream and the dashboard's live list). A stream's
 * connection is never reused: once the stream has ended (the process is stopping) or its client has gone (a
 * half-closed socket ends it too), the connection is closed rather than left to the client's side.
 */
export function eventStreamReply(reply: FastifyReply, body: Readable): FastifyReply {
  const socket = reply.raw.socket;
  const hangUp = () => socket?.destroy();
  reply.raw.once('finish', hangUp);
  body.once('close', hangUp);
  return reply
    .type('text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache, no-store')
    .header('x-accel-buffering', 'no')
    .header('connection', 'close');
}
