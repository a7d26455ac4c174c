import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';

/**
 * A page's filter form sends its empty fields too (`?search=&platform=`): those mean "no filter", so they are
 * left out before the query is validated (interceptors run before pipes), where the API would refuse them.
 */
@Injectable()
export class FormQueryInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const query = context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object') {
      for (const [name, value] of Object.entries(query)) if (value === '') delete query[name];
    }
    return next.handle();
  }
}
