import { Controller, Get, Headers, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentKey, RequireScope } from '../auth/auth.decorators.js';
import { ApiErrors } from '../common/openapi/api-responses.js';
import { type AuthenticatedKey, ownerOf } from '../auth/api-keys.service.js';
import { RESUME_ID_DESCRIPTION, RESUME_ID_PATTERN, StreamQuery } from './dto/stream.query.js';
import { eventStreamReply } from './event-stream-reply.js';
import { StreamService } from './stream.service.js';

@ApiTags('Subdomains')
@RequireScope('read')
@Controller('subdomains')
export class StreamController {
  constructor(private readonly streams: StreamService) {}

  @Get('stream')
  @ApiOperation({
    summary: 'Live new hosts as Server-Sent Events',
    description:
      'Not the envelope: a `text/event-stream` that stays open. It opens with one `event: ready` whose `id` is ' +
      'where the stream starts and whose `data` is `{"after": <that id>, "resumed": <true when Last-Event-ID or ' +
      'last_event_id was honoured>}`: an EventSource that reconnects before any host arrived sends that id, so ' +
      'nothing recorded meanwhile is lost. Then each host a scan records is one event, oldest ' +
      'first: `event: host`, `id: <first_seen_at>_<id>` (the keyset of /subdomains/new), and `data` a JSON ' +
      'object `{host, domain, platform, first_seen_at, sources}`. Without Last-Event-ID the stream starts with hosts ' +
      'recorded from now on; with it (EventSource sends it when it reconnects) it resumes right after that ' +
      'event, with nothing skipped or repeated. A comment line (`: heartbeat`) is written when the stream has ' +
      'been idle for STREAM_HEARTBEAT_SECONDS (15), so proxies keep it open. Events follow a scan commit within ' +
      'a second (a PostgreSQL NOTIFY wakes every API process), and never later than STREAM_POLL_SECONDS. When the ' +
      'process shuts down the stream ends; reconnect with Last-Event-ID. Errors before the stream opens are the ' +
      'JSON errors; a process serving STREAM_MAX_CLIENTS (1000) streams, or an owner already holding ' +
      'STREAM_MAX_PER_KEY (3) (a user over all their keys and dashboard tabs, or an operator key alone), ' +
      'answers 503 service_unavailable with Retry-After (both limits are per process). With `types` (a comma list of the change types of GET /events) the stream carries that ' +
      'feed instead: each change is one event named by its type (`event: dns_changed`), with the id and the data ' +
      'of GET /events, and Last-Event-ID takes such an id.',
  })
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: `Resume after this event id. ${RESUME_ID_DESCRIPTION}`,
    schema: { type: 'string', pattern: RESUME_ID_PATTERN },
  })
  @ApiProduces('text/event-stream')
  @ApiResponse({
    status: 200,
    description: 'The event stream',
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          example:
            'retry: 2000\nid: 2026-11-21T07:07:58.000001Z_0\nevent: ready\n' +
            'data: {"after":"2026-11-21T07:07:58.000001Z_0","resumed":false}\n\n' +
            'id: 2026-11-21T07:08:00.123456Z_1234\nevent: host\n' +
            'data: {"host":"api.example.com","domain":"example.com","platform":"hackerone","first_seen_at":"2026-11-21T07:08:00.123456Z","sources":["ct"]}\n\n' +
            ': heartbeat\n\n',
        },
      },
    },
  })
  @ApiErrors('invalid_query', 'invalid_domain', 'not_found', 'service_unavailable')
  async stream(
    @Query() query: StreamQuery,
    @Headers('last-event-id') lastEventId: string | undefined,
    @CurrentKey() key: AuthenticatedKey,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const body = await this.streams.open(query, lastEventId, ownerOf(key), request.server.server);
    void eventStreamReply(reply, body);
    return body;
  }
}
