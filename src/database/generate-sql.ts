import 'reflect-metadata';

/** One call of a repository method whose statements go into src/queries: its arguments, and a name if several. */
export interface SqlExample {
  name?: string;
  params: unknown[];
  /** The response DTO the method's rows are rendered as: test/queries.e2e-spec.ts checks their keys against it. */
  dto?: abstract new (...args: never[]) => unknown;
}

export interface SqlMethod {
  method: string;
  examples: SqlExample[];
}

const KEY = 'subdomain-monitor:generate-sql';

/**
 * Marks a repository method whose statements are written out to src/queries/<file>.sql (`npm run sync:sql`), and
 * checked there by test/queries.e2e-spec.ts: each example is one call, with arguments that reach every statement
 * the method sends. A method with no example is called with none.
 */
export function GenerateSql(...examples: SqlExample[]): MethodDecorator {
  return (target, key) => {
    const type = target.constructor;
    const methods = [...((Reflect.getMetadata(KEY, type) as SqlMethod[] | undefined) ?? [])];
    methods.push({ method: String(key), examples: examples.length ? examples : [{ params: [] }] });
    Reflect.defineMetadata(KEY, methods, type);
  };
}

/** The methods of a class marked with GenerateSql, in the order they are declared. */
export function sqlMethodsOf(type: abstract new (...args: never[]) => unknown): SqlMethod[] {
  return (Reflect.getMetadata(KEY, type) as SqlMethod[] | undefined) ?? [];
}
