import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { DataSource } from 'typeorm';
import { Environment } from '../config/environment.js';
import { rows } from '../database/sql.js';
import { Db, isReplicaFailure, noteReplicaFallback } from '../database/db.js';
import { ChunkQueue } from './chunk-queue.js';
import { CopyLines, type LastRow } from './copy-lines.js';
import type { ExportFormat } from './dto/export.query.js';
import { BATCH_SETTINGS, type ExportFilters, type Position, batchStatement } from './export.sql.js';
import { GenerateSql } from '../database/generate-sql.js';

/** What follows each line, and what comes between two (json's array commas). */
const ENDS: Record<ExportFormat, { end: string; between: string }> = {
  txt: { end: '\n', between: '' },
  csv: { end: '\r\n', between: '' }, // RFC 4180 ends every record with CRLF
  json: { end: '', between: ',\n' },
};

/** The host a line names (each format begins with it), for the position the next batch resumes from. */
const HOST_OF: Record<ExportFormat, (line: string) => string> = {
  txt: (line) => (line.includes('\t') ? line.slice(0, line.indexOf('\t')) : line),
  csv: (line) => line.slice(0, line.indexOf(',')),
  json: (line) => (JSON.parse(line) as { host: string }).host,
};

/** Rows of an export's first batch, before its rows' size is known. */
const FIRST_BATCH_ROWS = 10_000;

/**
 * Hosts to export, as the bytes of their lines, at the pace the client takes them. The order is root domain, then
 * host, and each batch is a keyset statement of its own (batchStatement) that resumes after the last row of the
 * one before, which its last line and root id tell. Each batch is one `COPY (…) TO STDOUT (FORMAT binary)` on a
 * pooled connection (a replica's when there are some), so PostgreSQL writes the lines and Node passes their bytes
 * on without decoding them; a batch is read as fast as PostgreSQL sends it, into a queue the client empties, and its
 * connection goes back to the pool at its end. Between batches no connection is held and no transaction is open,
 * so a client that reads slowly, or not at all, costs the database nothing, and on the embedded database (one
 * backend) every other request goes on between two batches. A host recorded behind the position while the export
 * runs is not in it, as with any cursor walk.
 */
@Injectable()
export class ExportRepository {
  /**
   * Most rows in one batch. A batch holds its connection while it runs: on the embedded database that is every
   * other request's connection, so its batches are shorter.
   */
  batchRows: number;
  /**
   * Bytes a batch aims at, judged by the rows of the batches before it, and the bytes that may still wait for the
   * client when the next one starts: an export holds about two batches at most, whatever its client does.
   */
  batchBytes = 8 * 2 ** 20;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    env: Environment,
  ) {
    this.batchRows = env.DATABASE_URL ? 200_000 : 10_000;
  }

  /** The export's lines, each with its line end (and json's commas between), batch after batch. */
  @GenerateSql(
    {
      name: 'txt, every host',
      params: ['txt', { fields: [], scope: 'all', hostScope: 'in', since: '2026-01-01T00:00:00.000000Z' }],
    },
    {
      name: 'csv of a platform, with fields',
      params: [
        'csv',
        {
          fields: ['ips', 'title'],
          platform: 'hackerone',
          scope: 'new',
          hostScope: 'all',
          since: '2026-01-01T00:00:00.000000Z',
        },
      ],
    },
    {
      name: 'json of a domain, a search, out of scope',
      params: [
        'json',
        {
          fields: ['cname', 'status'],
          domainId: 1,
          scope: 'inactive',
          hostScope: 'out',
          since: '2026-01-01T00:00:00.000000Z',
          search: 'api',
        },
      ],
    },
  )
  async *lines(format: ExportFormat, filters: ExportFilters): AsyncGenerator<Buffer> {
    const queue = new ChunkQueue(this.batchBytes);
    const filling = this.fill(queue, format, filters);
    try {
      for (let chunk = await queue.take(); chunk; chunk = await queue.take()) yield chunk;
    } finally {
      queue.close(); // a client gone stops the batch running now
      await filling;
    }
  }

  /** Runs the batches into the queue, one at a time, each once the bytes before it are nearly taken. */
  private async fill(queue: ChunkQueue, format: ExportFormat, filters: ExportFilters): Promise<void> {
    const lines = new CopyLines(Buffer.from(ENDS[format].end), Buffer.from(ENDS[format].between));
    let after: Position | undefined;
    let limit = Math.min(this.batchRows, FIRST_BATCH_ROWS);
    try {
      for (;;) {
        await queue.room();
        if (queue.closed) return;
        const last = await this.copy(batchStatement(format, filters, after, limit), lines, queue);
        if (!last || lines.rows < limit) break;
        const domain = last.key === after?.domainId ? after.domain : await this.domainName(last.key);
        after = { domainId: last.key, domain, host: HOST_OF[format](last.line.toString()) };
        const rowBytes = Math.max(1, lines.bytes / lines.rows);
        limit = Math.max(1, Math.min(this.batchRows, Math.floor(this.batchBytes / rowBytes)));
      }
      queue.end();
    } catch (error) {
      queue.fail(error);
    }
  }

  /**
   * The name of the root domain a batch ended in, read as soon as the batch ends (the next batch resumes after it
   * by name). Removed in the instant between, the export fails rather than end early as if it were whole.
   */
  private async domainName(id: number): Promise<string> {
    const [row] = await rows<{ domain: string }>(this.db, 'SELECT domain FROM domains WHERE id = $1', [id]);
    if (!row) throw new Error(`export: root domain ${id} was removed while it was being exported`);
    return row.domain;
  }

  /** One batch on a replica, or on the primary when there is none or the replica fails before the first row. */
  private async copy(sql: string, lines: CopyLines, queue: ChunkQueue): Promise<LastRow | undefined> {
    const replica = Db.of(this.db).replica();
    if (replica) {
      try {
        return await this.copyOn(replica, sql, lines, queue);
      } catch (error) {
        if (lines.rows > 0 || queue.closed || !isReplicaFailure(error)) throw error;
        noteReplicaFallback(error);
      }
    }
    return this.copyOn(Db.of(this.db).primary, sql, lines, queue);
  }

  /**
   * Runs one batch's COPY and puts its lines in the queue as they come. Its transaction is only there for the
   * batch's settings (BATCH_SETTINGS). Should a batch outgrow what may wait (its rows far larger than the rows
   * before), it is paused until the client catches up: it then holds its connection, for EXPORT_IDLE_SECONDS at
   * most if the client stops.
   */
  private async copyOn(pool: Pool, sql: string, lines: CopyLines, queue: ChunkQueue): Promise<LastRow | undefined> {
    lines.begin();
    const client = await pool.connect();
    if (queue.closed) {
      client.release();
      return undefined;
    }
    let complete = false;
    try {
      await client.query(`BEGIN READ ONLY; ${BATCH_SETTINGS}`);
      this.db.logger.logQuery(sql);
      await new Promise<void>((resolve, reject) => {
        const stream = client.query(copyTo(sql));
        const stop = () => stream.destroy(new Error('export stopped'));
        if (queue.closed) stop();
        queue.onClose = stop;
        stream.on('data', (chunk: Buffer) => {
          try {
            if (queue.push(lines.push(chunk))) return;
            stream.pause();
            void queue.room().then(() => stream.resume());
          } catch (error) {
            stream.destroy(error as Error);
          }
        });
        stream.once('end', resolve);
        stream.on('error', reject); // kept: a stream stopped mid-COPY still hears of its connection's end
        stream.once('close', () => reject(new Error('export: a batch ended before its COPY did')));
      });
      await client.query('COMMIT');
      complete = true;
      return lines.finish();
    } finally {
      queue.onClose = undefined;
      // A batch cut short (the client went away, or it failed) closes its connection rather than pooling it
      // mid-COPY, which ends the statement on the server at once.
      client.release(complete ? undefined : new Error('export batch stopped'));
    }
  }
}
