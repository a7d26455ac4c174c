import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { toAppError } from '../errors/to-app-error.js';
import { NotModified, notModified } from '../http/conditional-get.js';
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
    // Nest answers an unmatched route with its NotFoundException; our own code throws AppError instead.
    const error = exception instanceof NotFoundException ? this.unmatched(request) : toAppError(exception, request.id);
    if (reply.sent || reply.raw.headersSent) {
      // A streamed body already started: end it so the client sees a truncated response, not a hang.
      reply.raw.destroy();
      return;
    }
    sendError(request, reply, error);
  }

  private unmatched(request: FastifyRequest): AppError {
    const path = request.url.split('?')[0];
    const allowed = this.routes.allowedMethods(request.url);
    if (allowed.length > 0) {
      return new AppError(
        'method_not_allowed',
        `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`,
        { allow: allowed },
      );
    }
    return AppError.notFound(`No endpoint ${request.method} ${path}`);
  }
}
