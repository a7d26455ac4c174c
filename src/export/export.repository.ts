import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import type { DataSource } from 'typeorm';
import { Params, containsPattern, isoSql } from '../database/sql.js';
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
const LINE: Record<ExportFormat, string> = {
  txt: 'h.host',
  csv: `concat_ws(',', h.host, d.domain, d.platform_slug, ${isoSql('h.first_seen_at')}, h.is_active::text)`,
  json: `json_build_object('host', h.host, 'domain', d.domain, 'platform', d.platform_slug,
           'first_seen_at', ${isoSql('h.first_seen_at')}, 'is_active', h.is_active)::text`,
};

const BATCH = 2000;

/** Hosts as export lines, read through a server-side cursor: rows arrive as fast as the client takes them. */
@Injectable()
export class ExportRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Lines of the export ordered by root domain, then host (domains_domain_key for the programs,
   * hosts_domain_host_key within each, so PostgreSQL never sorts the whole set). The connection is held
   * until the generator finishes or is closed early (a client that disconnects): then the cursor closes
   * and the connection returns to the pool at once.
   */
  async *lines(format: ExportFormat, filters: ExportFilters): AsyncGenerator<string[]> {
    const q = new Params();
    const where: string[] = [];
    if (filters.domainId !== undefined) where.push(`d.id = ${q.p(filters.domainId)}`);
    if (filters.platform) where.push(`d.platform_slug = ${q.p(filters.platform)}`);
    if (filters.scope === 'new') where.push(`h.first_seen_at >= ${q.p(filters.since)}::timestamptz`);
    if (filters.scope === 'inactive') where.push('NOT h.is_active');
    if (filters.search) where.push(`h.host LIKE ${q.p(containsPattern(filters.search.toLowerCase()))} ESCAPE '\\'`);
    const sql = `/* export */ SELECT ${LINE[format]} FROM domains d JOIN hosts h ON h.domain_id = d.id
                  ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.domain, h.host`;

    const runner = this.db.createQueryRunner('slave');
    const client = (await runner.connect()) as pg.PoolClient;
    const stream = client.query(
      new QueryStream(sql, q.values, { batchSize: BATCH, rowMode: 'array', highWaterMark: BATCH }),
    );
    let complete = false;
    try {
      let batch: string[] = [];
      for await (const row of stream as AsyncIterable<[string]>) {
        batch.push(row[0]);
        if (batch.length >= BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
      complete = true;
    } finally {
      if (complete) {
        await runner.release();
      } else {
        // Left early (the client went away, or the query failed): the connection is closed rather than
        // reused, which ends the query on the server at once and leaves no half-read cursor in the pool.
        stream.destroy();
        await (runner as unknown as { releasePostgresConnection(err: Error): Promise<void> }).releasePostgresConnection(
          new Error('export stopped before its end'),
        );
      }
    }
  }
}
