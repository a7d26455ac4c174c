import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { windowStart } from '../common/validation/window.js';
import { DomainsRepository } from '../domains/domains.repository.js';
import type { ExportFormat, ExportQuery } from './dto/export.query.js';
import { ExportRepository } from './export.repository.js';

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
function frame(format: ExportFormat, lines: string[], first: boolean): string {
  switch (format) {
    case 'txt':
      return `${lines.join('\n')}\n`;
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
    private readonly domains: DomainsRepository,
  ) {}

  /**
   * Checks the parameters and reads the first batch before anything is sent, so a bad request or a failing
   * query is still answered with the JSON error. After that the body streams; an error then aborts the
   * response before its end (see the README: a truncated export never looks complete).
   */
  async prepare(query: ExportQuery): Promise<PreparedExport> {
    if (query.domain && query.platform) throw ApiError.invalidQuery('give domain or platform, not both');
    let domainId: number | undefined;
    if (query.domain) {
      const domain = await this.domains.findByName(query.domain);
      if (!domain) throw ApiError.notFound(`Domain ${query.domain} is not tracked`);
      domainId = domain.id;
    }
    const format = query.format;
    const batches = this.exports.lines(format, {
      domainId,
      platform: query.platform,
      scope: query.scope,
      since: windowStart(query),
      search: query.search,
    });
    const first = await batches.next().catch(async (e: unknown) => {
      await batches.return(undefined);
      throw e;
    });

    async function* body(): AsyncGenerator<string> {
      try {
        if (format === 'csv') yield `${CSV_HEADER}\r\n`;
        if (format === 'json') yield '[\n';
        if (!first.done) yield frame(format, first.value, true);
        for await (const lines of batches) yield frame(format, lines, false);
        if (format === 'json') yield first.done ? ']\n' : '\n]\n';
      } finally {
        await batches.return(undefined);
      }
    }
    return {
      body: Readable.from(body(), { objectMode: false }),
      mediaType: EXPORT_MEDIA_TYPES[format],
      filename: this.filename(query),
    };
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
