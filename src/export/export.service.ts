import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { Environment } from '../config/environment.js';
import { AppError } from '../common/errors/app-error.js';
import { windowStart } from '../common/validation/window.js';
import { DomainsService } from '../domains/domains.service.js';
import type { ExportFormat, ExportQuery } from './dto/export.query.js';
import { ExportSlots } from './export-slots.js';
import { ExportRepository } from './export.repository.js';
import type { ExportFilters } from './export.sql.js';

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  json: 'application/json; charset=utf-8',
};

export const CSV_HEADER = 'host,domain,platform,first_seen_at,is_active';

export interface PreparedExport {
  body: Readable;
  mediaType: string;
  filename: string;
}

@Injectable()
export class ExportService {
  private readonly logger = new Logger('Export');

  constructor(
    private readonly exports: ExportRepository,
    private readonly domains: DomainsService,
    private readonly slots: ExportSlots,
    private readonly env: Environment,
  ) {}

  /**
   * Checks the parameters, takes one of the process's export slots (or answers 503), and reads the first chunk
   * before anything is sent, so a bad request or a failing query is still answered with the JSON error. After that
   * the body streams; an error then aborts the response before its end (see docs/api.md, "Export": a truncated export never
   * looks complete), and so does a client that takes no data for EXPORT_IDLE_SECONDS. The slot is given back when
   * the body ends, however it ends.
   */
  async prepare(query: ExportQuery): Promise<PreparedExport> {
    if (query.domain && query.platform) throw AppError.invalidQuery('give domain or platform, not both');
    const domainId = query.domain ? (await this.domains.requireTracked(query.domain)).id : undefined;
    const format = query.format;
    const filters: ExportFilters = {
      fields: [...new Set(query.fields ?? [])],
      domainId,
      platform: query.platform,
      scope: query.scope,
      hostScope: query.host_scope,
      since: windowStart(query),
      search: query.search,
    };
    const release = await this.slots.acquire();
    const chunks = this.framed(format, filters);
    const first = await chunks.next().catch(async (e: unknown) => {
      release();
      await chunks.return(undefined);
      throw e;
    });

    const idleMs = this.env.EXPORT_IDLE_SECONDS * 1000;
    const logger = this.logger;
    let timer: NodeJS.Timeout | undefined;
    /** Hands out one chunk; if the client has not taken it within EXPORT_IDLE_SECONDS, the response is aborted. */
    async function* body(): AsyncGenerator<string | Buffer> {
      try {
        for (let next = first; !next.done; next = await chunks.next()) {
          timer = setTimeout(() => {
            logger.warn(`Export aborted: its client took no data for ${idleMs / 1000} s`);
            stream.destroy(new Error('export client idle'));
          }, idleMs);
          yield next.value; // resumes when the response wants the next chunk
          clearTimeout(timer);
        }
      } finally {
        clearTimeout(timer);
        release();
        await chunks.return(undefined);
      }
    }
    const stream = Readable.from(body(), { objectMode: false });
    stream.once('close', () => {
      clearTimeout(timer);
      release();
    });
    return { body: stream, mediaType: EXPORT_MEDIA_TYPES[format], filename: this.filename(query) };
  }

  /** The csv header or json opening bracket, the lines' bytes, and the json closing bracket. */
  private async *framed(format: ExportFormat, filters: ExportFilters): AsyncGenerator<string | Buffer> {
    const lines = this.exports.lines(format, filters);
    try {
      // The first bytes are read before anything is framed, so a failing first batch is still a JSON error.
      const head = await lines.next();
      if (format === 'csv') yield `${[CSV_HEADER, ...filters.fields].join(',')}\r\n`;
      if (format === 'json') yield '[\n';
      for (let next = head; !next.done; next = await lines.next()) yield next.value;
      if (format === 'json') yield head.done ? ']\n' : '\n]\n';
    } finally {
      await lines.return(undefined); // a client gone ends the batch running now
    }
  }

  /** e.g. subdomains-hackerone-new-24h-20261121.csv, subdomains-example.com-all-20261121.txt */
  private filename(query: ExportQuery): string {
    const subject = query.domain ?? query.platform ?? 'all';
    const scope =
      query.scope === 'new'
        ? query.since
          ? `new-since-${query.since.slice(0, 10)}`
          : `new-${query.hours}h`
        : query.scope;
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    return `subdomains-${subject}-${scope}${query.search ? '-search' : ''}-${day}.${query.format}`;
  }
}
