import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import QueryStream from 'pg-query-stream';
import type { DataSource, QueryRunner } from 'typeorm';
import { Params, containsPattern, isReplicaFailure, isoSql, noteReplicaFallback } from '../database/sql.js';
import type { ExportFormat, ExportScope } from './dto/export.query.js';

export interface ExportFilters {
  domainId?: number;
  platform?: string;
  scope: ExportScope;
  since: string;
  search?: string;
}

// PostgreSQL renders each line itself, so Node only joins strings. Hosts, domains and slugs are validated
// names (letters, digits, '-', '_', '.'), so no CSV field ever needs quoting.
const LINE: Record<Exclude<ExportFormat, 'txt'>, string> = {
  csv: `concat_ws(',', h.host, d.domain, d.platform_slug, ${isoSql('h.first_seen_at')}, h.is_active::text)`,
  json: `json_build_object('host', h.host, 'domain', d.domain, 'platform', d.platform_slug,
           'first_seen_at', ${isoSql('h.first_seen_at')}, 'is_active', h.is_active)::text`,
};

const BATCH = 2000;

/**
 * Hosts to export, read at the pace the client takes them. The order is root domain, then host
 * (domains_domain_key for the programs, hosts_domain_host_key within each, so PostgreSQL never sorts the
 * whole set). A connection is held until the generator finishes or is closed early (a client that
 * disconnects): then it is closed rather than pooled, which ends the query on the server at once.
 */
@Injectable()
export class ExportRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** txt: PostgreSQL writes the lines itself (COPY … TO STDOUT) and the bytes pass through undecoded. */
  async *textChunks(filters: ExportFilters): AsyncGenerator<Buffer> {
    const { runner, client } = await this.connect();
    // COPY takes no bind parameters: values go in as literals quoted by pg itself (all are validated anyway).
    const where = this.conditions(filters, (v) =>
      typeof v === 'number' ? String(v) : client.escapeLiteral(String(v)),
    );
    const sql = `COPY (SELECT h.host FROM domains d JOIN hosts h ON h.domain_id = d.id ${where} ORDER BY d.domain, h.host) TO STDOUT`;
    yield* this.drain(runner, client.query(copyTo(sql)) as AsyncIterable<Buffer> & { destroy(): void });
  }

  /** csv and json: lines rendered by PostgreSQL, read in batches through a server-side cursor. */
  async *lineBatches(format: Exclude<ExportFormat, 'txt'>, filters: ExportFilters): AsyncGenerator<string[]> {
    const q = new Params();
    const where = this.conditions(filters, (v) => q.p(v));
    const sql = `/* export */ SELECT ${LINE[format]} FROM domains d JOIN hosts h ON h.domain_id = d.id ${where} ORDER BY d.domain, h.host`;
    const { runner, client } = await this.connect();
    const stream = client.query(
      new QueryStream(sql, q.values, { batchSize: BATCH, rowMode: 'array', highWaterMark: BATCH }),
    );
    let batch: string[] = [];
    for await (const row of this.drain(runner, stream as AsyncIterable<[string]> & { destroy(): void })) {
      batch.push(row[0]);
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  private conditions(filters: ExportFilters, value: (v: unknown) => string): string {
    const where: string[] = [];
    if (filters.domainId !== undefined) where.push(`d.id = ${value(filters.domainId)}`);
    if (filters.platform) where.push(`d.platform_slug = ${value(filters.platform)}`);
    if (filters.scope === 'new') where.push(`h.first_seen_at >= ${value(filters.since)}::timestamptz`);
    if (filters.scope === 'inactive') where.push('NOT h.is_active');
    if (filters.search) where.push(`h.host LIKE ${value(containsPattern(filters.search.toLowerCase()))} ESCAPE '\\'`);
    return where.length ? `WHERE ${where.join(' AND ')}` : '';
  }

  /** A connection to a read replica (TypeORM replication's `slave` runner), the primary's when none answers. */
  private async connect(): Promise<{ runner: QueryRunner; client: pg.PoolClient }> {
    const runner = this.db.createQueryRunner('slave');
    try {
      return { runner, client: (await runner.connect()) as pg.PoolClient };
    } catch (error) {
      if (!this.db.driver.isReplicated || !isReplicaFailure(error)) throw error;
      noteReplicaFallback(error);
      const primary = this.db.createQueryRunner('master');
      return { runner: primary, client: (await primary.connect()) as pg.PoolClient };
    }
  }

  /** Yields what the stream yields; releases the connection at the end, or closes it if left early. */
  private async *drain<T>(runner: QueryRunner, stream: AsyncIterable<T> & { destroy(): void }): AsyncGenerator<T> {
    let complete = false;
    try {
      yield* stream;
      complete = true;
    } finally {
      if (complete) {
        await runner.release();
      } else {
        stream.destroy();
        await (runner as unknown as { releasePostgresConnection(err: Error): Promise<void> }).releasePostgresConnection(
          new Error('export stopped before its end'),
        );
      }
    }
  }
}
