import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toAppError } from '../errors/to-app-error.js';
import { NotModified, notModified } from '../http/conditional-get.js';
import { unmatched } from '../http/route-check.js';
import { RouteIndex } from '../http/route-index.js';
import { sendError } from '../http/send-error.js';

/** The one place errors become responses: `{error:{code,message},request_id}` with the contract's status. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(@Inject(RouteIndex) private readonly routes: RouteIndex) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (exception instanceof NotModified) {
      notModified(reply, exception.etag);
      void reply.send('');
      return;
    }
    // Nest answers an unmatched route with its NotFoundException (the route check answers most of them first); our
    // own code throws AppError instead.
    const error =
      exception instanceof NotFoundException ? unmatched(this.routes, request) : toAppError(exception, request.id);
    if (reply.sent || reply.raw.headersSent) {
      // A streamed body already started: end it so the client sees a truncated response, not a hang.
      reply.raw.destroy();
      return;
    }
    sendError(request, reply, error);
  }
}
