import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toAppError } from '../../common/errors/to-app-error.js';
import { statusOf } from '../../common/http/http-status.js';
import { headersOf } from '../../common/http/send-error.js';
import { AccountError } from './account.service.js';
import { errorPage } from '../error-page.js';
import { sendPage } from '../respond.js';

/**
 * The account page and the dashboard answer in HTML, their refusals and failures included (the API's filter
 * answers in JSON).
 */
@Catch()
export class AccountPageFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (reply.sent) return;
    let status: number;
    let title: string;
    let message: string;
    if (exception instanceof AccountError) {
      ({ status, title, message } = exception);
      void reply.headers(exception.headers);
    } else {
      const error = toAppError(exception, request.id); // logs what was unexpected
      void reply.headers(headersOf(error)); // a busy stream's Retry-After, say
      status = statusOf(error.code);
      title = status === 503 ? 'Busy' : status >= 500 ? 'Something went wrong' : 'Not possible';
      message = status >= 500 && status !== 503 ? 'The request failed. Try again in a moment.' : error.message;
    }
    const dashboard = request.url === '/app' || request.url.startsWith('/app/') || request.url.startsWith('/app?');
    sendPage(reply, status, errorPage(status, title, message, request.id, dashboard));
  }
}
