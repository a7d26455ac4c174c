import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiProduces, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequireScope } from '../auth/auth.decorators.js';
import { ApiErrors } from '../common/openapi/api-responses.js';
import { HOST_SOURCES } from '../hosts/model/host-sources.js';
import { HostDnsDto, HttpProbeDto, TakeoverDto } from '../hosts/model/knowledge.dto.js';
import { ExportQuery } from './dto/export.query.js';
import { CSV_HEADER, ExportService } from './export.service.js';

/** One of the host lists' knowledge objects, or null. */
const nullableRef = (dto: abstract new () => unknown, description: string) => ({
  description,
  anyOf: [{ $ref: getSchemaPath(dto) }, { type: 'null' }],
});

const ROW = {
  type: 'object',
  required: ['host', 'domain', 'platform', 'first_seen_at', 'is_active', 'sources'],
  properties: {
    host: { type: 'string' },
    domain: { type: 'string' },
    platform: { type: 'string' },
    first_seen_at: { type: 'string', format: 'date-time' },
    is_active: { type: 'boolean' },
    sources: {
      type: 'array',
      items: { type: 'string', enum: HOST_SOURCES },
      description: 'The sources that have found the host (json only; csv keeps the columns of its header)',
    },
    ips: {
      type: 'array',
      items: { type: 'string' },
      description: 'fields=ips only: the A and AAAA addresses of the last DNS answer',
    },
    cname: { type: 'array', items: { type: 'string' }, description: 'fields=cname only: the CNAME chain' },
    status: { type: ['integer', 'null'], description: "fields=status only: the last HTTP probe's status" },
    title: { type: ['string', 'null'], description: "fields=title only: the last HTTP probe's page title" },
    dns: nullableRef(HostDnsDto, 'format=json, fields=dns only: the last DNS answer, as on the host lists'),
    http: nullableRef(HttpProbeDto, 'format=json, fields=http only: the last HTTP probe, as on the host lists'),
    takeover: nullableRef(TakeoverDto, 'format=json, fields=takeover only: a takeover candidate, as on the host lists'),
    wildcard: { type: 'boolean', description: 'format=json, fields=wildcard only: an echo of its zone’s wildcard' },
  },
};

@ApiTags('Export')
@ApiExtraModels(HostDnsDto, HttpProbeDto, TakeoverDto)
@RequireScope('read')
@Controller('export')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Get()
  @ApiOperation({
    summary: 'Stream hosts of one domain, one platform, or everything, as txt, csv or json',
    description:
      'Not the envelope: a streamed body, ordered by root domain, then host, with a Content-Disposition filename. ' +
      'Errors found before the first byte are answered with the JSON error. An error after streaming started aborts ' +
      'the response before its end: the chunked body has no final chunk (curl exits 18), and a json body is not a closed array. ' +
      'A process streams at most EXPORT_MAX_CONCURRENT exports at once; a further one waits up to EXPORT_WAIT_SECONDS, then ' +
      'gets 503 service_unavailable with Retry-After. An export whose client takes no data for EXPORT_IDLE_SECONDS is aborted.',
  })
  @ApiProduces('text/plain', 'text/csv', 'application/json')
  @ApiResponse({
    status: 200,
    description: 'The export',
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="subdomains-<subject>-<scope>-<yyyymmdd>.<format>"',
        schema: { type: 'string' },
      },
    },
    content: {
      'text/plain': {
        schema: {
          type: 'string',
          description: 'format=txt: one host per line',
          example: 'a.example.com\nb.example.com\n',
        },
      },
      'text/csv': {
        schema: {
          type: 'string',
          description: `format=csv: RFC 4180, a header row "${CSV_HEADER}", one row per host`,
          example: `${CSV_HEADER}\r\na.example.com,example.com,hackerone,2026-11-21T07:08:00.123456Z,true\r\n`,
        },
      },
      'application/json': { schema: { type: 'array', description: 'format=json: one array, streamed', items: ROW } },
    },
  })
  @ApiErrors('invalid_query', 'invalid_domain', 'not_found', 'service_unavailable')
  async export(@Query() query: ExportQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const prepared = await this.exports.prepare(query);
    void reply
      .type(prepared.mediaType)
      .header('content-disposition', `attachment; filename="${prepared.filename}"`)
      .header('x-content-type-options', 'nosniff');
    return prepared.body;
  }
}
