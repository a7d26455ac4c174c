import type { ExecutionContext, Type } from '@nestjs/common';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- what ExecutionContext.getHandler returns
type Targets = [Function, Type];

/**
 * What a route's metadata says, read once per route (its handler within its controller class) and kept: guards ask
 * it on every request, and reading decorators' metadata each time costs more than the rest of their work.
 */
export class RouteMetadata<T> {
  private readonly byClass = new WeakMap<Type, WeakMap<object, T>>();

  constructor(private readonly read: (targets: Targets) => T) {}

  of(context: ExecutionContext): T {
    const handler = context.getHandler();
    const type = context.getClass();
    let byHandler = this.byClass.get(type);
    if (!byHandler) this.byClass.set(type, (byHandler = new WeakMap()));
    let found = byHandler.get(handler);
    if (found === undefined) byHandler.set(handler, (found = this.read([handler, type])));
    return found;
  }
}
