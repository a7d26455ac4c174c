import { registerDecorator, type ValidationOptions } from 'class-validator';
import { rootDomainProblem } from './root-domain.js';

/** A bare lowercase root domain; failures are answered with 400 invalid_domain. */
export function IsRootDomain(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isRootDomain',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && rootDomainProblem(value) === null,
        defaultMessage: (args) => {
          const problem = typeof args?.value === 'string' ? rootDomainProblem(args.value) : 'must be a string';
          return `${args?.property} ${problem ?? 'is invalid'}`;
        },
      },
    });
}
