import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { windowStart } from '../common/validation/window.js';
import { DomainsService } from '../domains/domains.service.js';
import type { ExportFormat, ExportQuery } from './dto/export.query.js';
import { type ExportFilters, ExportRepository } from './export.repository.js';

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

/** Joins a batch of lines into one chunk of the format's body. */
function frame(format: 'csv' | 'json', lines: string[], first: boolean): string {
  switch (format) {
    case 'csv': // RFC 4180 ends every record with CRLF
      return `${lines.join('\r\n')}\r\n`;
    case 'json':
      return `${first ? '' : ',\n'}${lines.join(',\n')}`;
  }
}

@Injectable()
export class ExportService {
  constructor(
    private readonly exports: ExportRepository,
    private readonly domains: DomainsService,
  ) {}

  /**
   * Checks the parameters and reads the first chunk before anything is sent, so a bad request or a failing
   * query is still answered with the JSON error. After that the body streams; an error then aborts the
   * response before its end (see the README: a truncated export never looks complete).
   */
  async prepare(query: ExportQuery): Promise<PreparedExport> {
    if (query.domain && query.platform) throw ApiError.invalidQuery('give domain or platform, not both');
    const domainId = query.domain ? (await this.domains.requireTracked(query.domain)).id : undefined;
    const format = query.format;
    const filters: ExportFilters = {
      domainId,
      platform: query.platform,
      scope: query.scope,
      since: windowStart(query),
      search: query.search,
    };
    const chunks: AsyncGenerator<string | Buffer> =
      format === 'txt' ? this.exports.textChunks(filters) : this.framed(format, filters);
    const first = await chunks.next().catch(async (e: unknown) => {
      await chunks.return(undefined);
      throw e;
    });

    async function* body(): AsyncGenerator<string | Buffer> {
      try {
        if (!first.done) yield first.value;
        yield* chunks;
      } finally {
        await chunks.return(undefined);
      }
    }
    return {
      body: Readable.from(body(), { objectMode: false }),
      mediaType: EXPORT_MEDIA_TYPES[format],
      filename: this.filename(query),
    };
  }

  /** csv and json: the header or opening bracket, the framed batches, and the closing bracket. */
  private async *framed(format: 'csv' | 'json', filters: ExportFilters): AsyncGenerator<string> {
    yield format === 'csv' ? `${CSV_HEADER}\r\n` : '[\n';
    let first = true;
    for await (const lines of this.exports.lineBatches(format, filters)) {
      yield frame(format, lines, first);
      first = false;
    }
    if (format === 'json') yield first ? ']\n' : '\n]\n';
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
