import { constants } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Bodies smaller than this are sent as they are: compressing them costs more than it saves. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Compresses responses a client asks for compressed (Accept-Encoding: br or gzip), through @fastify/compress:
 * JSON bodies over 1 KiB, txt pages and exports, streamed as they are written (an export is never held whole in
 * memory), with `Vary: Accept-Encoding`. A client that sends no Accept-Encoding (or names neither) gets the body
 * as before. The live stream (text/event-stream) is never compressed: a compressor would hold its events back.
 * HTML pages are never compressed either (see skipHtml).
 *
 * The levels favour speed over size, for bulk exports: brotli quality 4 and gzip level 3 compress a host list
 * about 5–8 times, at a small share of the CPU of the libraries' defaults (brotli 11, gzip 6).
 */
export async function installCompression(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onSend', skipHtml);
  await fastify.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: COMPRESS_THRESHOLD_BYTES,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 3 },
  });
}

/**
 * BREACH: a page that reflects what the request says (a search, the dashboard's filters) beside a secret that is
 * the same on every response (the CSRF token) lets an observer of the compressed sizes guess the secret a byte at
 * a time. So text/html goes out as it is. @fastify/compress only skips a type mime-db calls compressible when the
 * request says `x-no-compression`, which this says for it. Fastify runs this hook before the plugin's: hooks of the
 * instance come before those the plugin adds to each route.
 */
function skipHtml(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: () => void): void {
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && type.toLowerCase().startsWith('text/html'))
    request.raw.headers['x-no-compression'] = '1';
  done();
}
