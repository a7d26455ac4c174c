import { type ArgumentMetadata, Injectable, ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppError, type ErrorCode } from '../errors/app-error.js';

/** Constraint names whose failure has a code of its own instead of the generic invalid_query/invalid_body. */
const SPECIFIC_CODES: Record<string, ErrorCode> = { isRootDomain: 'invalid_domain' };

class ValidationFailed extends Error {
  constructor(readonly errors: ValidationError[]) {
    super('validation failed');
  }
}

function firstFailure(
  errors: ValidationError[],
  path = '',
): { property: string; constraint: string; message: string } | null {
  for (const e of errors) {
    const property = path ? `${path}.${e.property}` : e.property;
    const [constraint, message] = Object.entries(e.constraints ?? {})[0] ?? [];
    if (constraint) return { property, constraint, message: message.replace(e.property, property) };
    const nested = firstFailure(e.children ?? [], property);
    if (nested) return nested;
  }
  return null;
}

/**
 * The global pipe: whitelists (parameters the contract does not name are dropped), transforms, and turns
 * the first failure into the contract's error, whose message names the parameter.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      transform: true,
      forbidUnknownValues: false,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new ValidationFailed(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDto = typeof metadata.metatype === 'function' && metadata.metatype !== Object;
    if (metadata.type === 'body' && isDto && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new AppError('invalid_body', 'Request body must be a JSON object');
    }
    try {
      return await super.transform(value, metadata);
    } catch (e) {
      if (!(e instanceof ValidationFailed)) throw e;
      const failure = firstFailure(e.errors);
      const generic: ErrorCode = metadata.type === 'body' ? 'invalid_body' : 'invalid_query';
      const code = (failure && SPECIFIC_CODES[failure.constraint]) ?? generic;
      throw new AppError(code, failure?.message ?? `Invalid ${metadata.type}`);
    }
  }
}
