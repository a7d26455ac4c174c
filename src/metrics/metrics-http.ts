import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DataSource } from 'typeorm';
import { AppError } from '../common/errors/app-error.js';
import { sendError } from '../common/http/send-error.js';
import { rows } from '../database/sql.js';
import { Db } from '../database/db.js';
import type { Metrics, MetricsSources } from './metrics.js';

/** What a scrape reads from the app's data source; nothing until Nest has built it. */
export function databaseSources(dataSource: () => DataSource | undefined): MetricsSources {
  return {
    pool: () => {
      const source = dataSource();
      const pool = source ? Db.of(source).primary : undefined;
      return { total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0 };
    },
    workerLagSeconds: async () => {
      const source = dataSource();
      if (!source) return 0;
      const [row] = await rows<{ lag: number }>(
        source,
        `SELECT coalesce(extract(epoch FROM now() - min(next_scan_at)), 0)::float8 AS lag
           FROM domains WHERE enabled AND next_scan_at <= now()`,
      );
      return Math.max(0, row?.lag ?? 0);
    },
    ctLag: async () => {
      const source = dataSource();
      if (!source) return [];
      return rows<{ url: string; lag: number }>(
        source,
        `SELECT url, greatest(tree_size - position, 0)::float8 AS lag FROM ct_logs WHERE position IS NOT NULL`,
      );
    },
  };
}

/**
 * With METRICS=on: times every request by its route template, and serves Prometheus text at /metrics (only for
 * `Authorization: Bearer <METRICS_TOKEN>` when a token is set). Off, it adds nothing to the request path.
 */
export function instrumentHttp(fastify: FastifyInstance, metrics: Metrics, serve: boolean, token?: string): void {
  if (!serve) return;
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const expected = token ? Buffer.from(`Bearer ${token}`) : null;
  fastify.get('/metrics', async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length === 0) {
        return sendError(request, reply, new AppError('missing_token', 'Send Authorization: Bearer <METRICS_TOKEN>'));
      }
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return sendError(request, reply, new AppError('invalid_token', 'Not the metrics token'));
      }
    }
    const text = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(text);
  });
}
